/** Loaded before every test file (bunfig.toml): the VM's opt-in parts, as every host but bare `ajs-lang/vm` has them. */
import '../src/vm/parts/all.ts'
