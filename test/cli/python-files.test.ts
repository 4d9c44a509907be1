/** `ajsc run`, `check` and `build` of `.py` files: a Python block body reading `args`, or a whole def taking the fields by name. */
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ajsc } from './run-cli.ts'

const dir = mkdtempSync(join(tmpdir(), 'ajsc-py-'))
const file = (name: string, text: string) => { writeFileSync(join(dir, name), text); return name }

describe('.py inputs', () => {
  test('run: a body reads the --args object as `args`; any JSON result', () => {
    const f = file('total.py', 'total = sum(x["price"] * x["qty"] for x in args["items"])\nreturn {"total": total, "shown": f"${total:,.2f}"}\n')
    const r = ajsc(['run', f, '--args', '{"items": [{"price": 1234.5, "qty": 2}]}'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ total: 2469, shown: '$2,469.00' })
    const list = ajsc(['run', file('list.py', 'return [len(args), sorted(args)]\n'), '--args', '{"b": 1, "a": 2}'], { cwd: dir })
    expect(JSON.parse(list.stdout)).toEqual([2, ['a', 'b']])
  })

  test('run: a whole def takes the fields by name, with its defaults; an exception is located', () => {
    const f = file('scale.py', 'def scale(a, b=2):\n    if a > 3:\n        raise ValueError(f"too big: {a}")\n    return a * b\n')
    expect(JSON.parse(ajsc(['run', f, '--args', '{"a": 1}'], { cwd: dir }).stdout)).toBe(2)
    expect(JSON.parse(ajsc(['run', f, '--args', '{"a": 1, "b": 5}'], { cwd: dir }).stdout)).toBe(5)
    const bad = ajsc(['run', f, '--args', '{"a": 5}'], { cwd: dir })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('scale.py:3:9: error THROWN: too big: 5')
    const named = ajsc(['run', file('named.py', 'def g(args):\n    return args\n'), '--args', '{"args": 5}'], { cwd: dir })
    expect(JSON.parse(named.stdout)).toBe(5)
  })

  test('check: located Python errors with hints in ajsc terms; .py and .ajs together', () => {
    file('ok.ajs', 'function f({ n }) { return n }')
    const r = ajsc(['check', file('bad.py', 'x = 1\nreturn y + x\n'), 'ok.ajs', 'total.py'], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad.py:2:8: error AJS7006: `y` is not defined')
    expect(r.stderr).toContain('--args is `args`')
    expect(r.stderr).toContain('3 files checked: 1 error')
    const star = ajsc(['check', file('star.py', 'def g(*a):\n    return 1\n')], { cwd: dir })
    expect(star.stderr).toContain('error AJS7011')
    expect(star.stderr).toContain('def f(a, b=1):')
  })

  test('build: a .py file becomes an AST the VM runs (a body takes { "args": ... })', () => {
    expect(ajsc(['build', 'scale.py', '--outdir', 'out'], { cwd: dir }).code).toBe(0)
    const ast = JSON.parse(readFileSync(join(dir, 'out/scale.json'), 'utf8'))
    expect(ast.libraries).toEqual({ python: 1 })
    expect(JSON.parse(ajsc(['run', 'out/scale.json', '--args', '{"a": 3}'], { cwd: dir }).stdout)).toBe(6)
    expect(ajsc(['build', 'total.py', '--outfile', 'total.json'], { cwd: dir }).code).toBe(0)
    const r = ajsc(['run', 'total.json', '--args', '{"args": {"items": [{"price": 2, "qty": 3}]}}'], { cwd: dir })
    expect(JSON.parse(r.stdout)).toEqual({ total: 6, shown: '$6.00' })
  })
})
