/**
 * `nonlocal` (extended profile): CPython's compile-time rules, and which enclosing variables become
 * cells. A name a function declares `nonlocal` is not its local; it is the variable of the nearest
 * enclosing function that binds it. That variable is then a cell (a one-item array, scope.ts): the
 * owner and every nested function reading or assigning it hold the same array, so an assignment in
 * one is seen by all, including closures returned from a factory. Variables no `nonlocal` names
 * stay plain VM variables, so code without `nonlocal` compiles exactly as before.
 */
import type { Expr, Loc, Param, Stmt } from './ir.ts'
import type { Refuser } from './refuse.ts'
import { hiddenName, targetNames, type FnScope } from './scope.ts'
import { forEachChild } from './analyze.ts'

/**
 * The `nonlocal` statements of one function body (not of the functions nested in it), with
 * CPython's errors for a name that is a parameter of the function, or assigned or read before its
 * `nonlocal` statement. The block's own `nonlocal` finds no binding (nothing encloses `_block`); in a
 * program whose top level is a script (`moduleLevel`: a workflow), it is CPython's module-level error.
 * A nested function may still declare a variable of a script's top level `nonlocal` (CPython: `global`,
 * which programs here do not have).
 */
export function collectNonlocals(body: Stmt[], params: ReadonlyArray<Pick<Param, 'name'>>, s: FnScope, r: Refuser, moduleLevel: boolean): void {
  const assigned = new Set<string>()
  const used = new Set<string>()
  const useExpr = (e: Expr | null): void => {
    if (!e) return
    if (e.k === 'name') used.add(e.id)
    else if (e.k === 'walrus') assigned.add(e.id)
    // A lambda's body is a scope of its own; its defaults are evaluated here.
    if (e.k === 'lambda') e.defaults.forEach(useExpr)
    else forEachChild(e, useExpr)
  }
  const bindTarget = (t: Expr) => { for (const n of targetNames(t)) assigned.add(n); if (t.k !== 'name') useExpr(t) }
  const walk = (stmts: Stmt[]): void => {
    for (const st of stmts) {
      switch (st.k) {
        case 'nonlocal':
          for (const name of st.names) {
            if (moduleLevel && s.kind === 'block') throw syntax(r, 'nonlocal declaration not allowed at module level', 'Only a nested function declares `nonlocal`; at the top level, assign the variable directly.', st.loc)
            if (params.some((p) => p.name === name)) throw syntax(r, `name '${name}' is parameter and nonlocal`, `A parameter is a local of its function: rename the parameter, or drop \`nonlocal ${name}\`.`, st.loc)
            const early = used.has(name) ? 'used prior to' : assigned.has(name) ? 'assigned to before' : null
            if (early) throw syntax(r, `name '${name}' is ${early} nonlocal declaration`, `Move \`nonlocal ${name}\` to the top of the function, before it reads or assigns \`${name}\`.`, st.loc)
            if (!s.nonlocals.has(name)) s.nonlocals.set(name, st.loc)
          }
          break
        case 'expr': useExpr(st.e); break
        case 'assign': useExpr(st.value); st.targets.forEach(bindTarget); break
        case 'aug': useExpr(st.value); if (st.target.k === 'name') used.add(st.target.id); bindTarget(st.target); break
        case 'for': useExpr(st.iter); bindTarget(st.target); walk(st.body); walk(st.orelse); break
        case 'while': case 'if': useExpr(st.test); walk(st.body); walk(st.orelse); break
        case 'return': useExpr(st.value); break
        case 'raise': useExpr(st.exc); break
        case 'assert': useExpr(st.test); useExpr(st.msg); break
        case 'del': st.targets.forEach(bindTarget); break
        case 'try':
          walk(st.body)
          for (const h of st.handlers) { useExpr(h.type); if (h.name) assigned.add(h.name); walk(h.body) }
          walk(st.orelse); walk(st.finalbody)
          break
        case 'def': for (const p of st.params) useExpr(p.dflt); assigned.add(st.name); break
      }
    }
  }
  walk(body)
}

/**
 * After every scope's locals are known: each `nonlocal` name's owner (CPython's "no binding" error
 * when no enclosing function binds it) becomes a cell there, and the declaring function receives
 * it as an enclosing variable even where it only assigns it.
 */
export function resolveNonlocals(scopes: FnScope[], r: Refuser): void {
  for (const s of scopes) {
    for (const [name, loc] of s.nonlocals) {
      const owner = s.parent?.owner(name)
      if (!owner && importedAround(s, name)) {
        // CPython binds it in the enclosing function; here an import is a compile-time binding, read
        // as the module or member wherever it is named, so the name needs no cell, only no rebinding.
        if (s.assigned.has(name)) throw r.error('PY_UNSUPPORTED', { name: `Assigning the imported name \`${name}\``, fix: `Give the variable another name, or import with \`as\`: \`import ... as other\`.` }, loc)
        s.nonlocals.delete(name)
        continue
      }
      if (!owner) throw syntax(r, `no binding for nonlocal '${name}' found`, `\`nonlocal\` names a variable of an enclosing function: assign \`${name}\` there (the block or a \`def\` around this one), or drop \`nonlocal\` to keep it local.`, loc)
      if (owner.defs.has(name)) {
        throw r.error('PY_UNSUPPORTED', { name: `\`nonlocal ${name}\` of a function`, fix: 'Functions keep their names: keep the value in another variable and declare that one `nonlocal`.' }, loc)
      }
      owner.cells.add(name)
      s.free.set(hiddenName(name, owner), [name, owner])
    }
  }
}

/** An enclosing function (the block included) imports `name`. */
function importedAround(s: FnScope, name: string): boolean {
  for (let p = s.parent; p; p = p.parent) if (p.imported.has(name)) return true
  return false
}

function syntax(r: Refuser, detail: string, fix: string, loc: Loc) {
  return r.error('PY_SYNTAX', { detail, fix }, loc)
}
