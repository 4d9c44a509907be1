// Types for `import flow from './flow.ajs'` (the plugins turn .ajs files into their AST).
declare module '*.ajs' {
  const ast: import('ajs-lang/vm').AjsProgram
  export default ast
}
