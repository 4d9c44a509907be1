/**
 * Definitions to the tree: `def` (a generator when its body yields: lower-generator.ts),
 * `class` with its members, and decorators.
 */
import type { SyntaxNode } from '@lezer/common'
import type { ClassItem, Expr, Loc, MethodDescriptor, Stmt } from '../ir.ts'
import { kids, PUNCT } from './lezer.ts'
import { PatternParser } from './patterns.ts'

export abstract class DefinitionParser extends PatternParser {

  protected decorator(d: SyntaxNode, args = false): Expr {
    const c = kids(d).filter((x) => x.name !== 'At' && x.name !== '@')
    let e = this.expr(c[0]!)
    for (let i = 1; i < c.length; i++) {
      if (c[i]!.name === '.') { e = { k: 'attr', obj: e, name: this.text(c[i + 1]!), loc: this.at(c[i + 1]!) }; i++ }
      else if (c[i]!.name === 'ArgList' && args) {
        const call = this.call(c[0]!, c[i]!, this.at(c[i]!))
        if (call.k === 'call') e = { ...call, fn: e }
      } else if (c[i]!.name === 'ArgList') this.unsupported('Decorator arguments', 'Write `@dataclass` without arguments (the generated `__init__`, `__repr__` and `__eq__` are the defaults).', c[i]!)
    }
    return e
  }

  /** `class Name(Base):` with methods and attributes (extended profile). */
  protected classDef(n: SyntaxNode, c: SyntaxNode[], decorators: Expr[], loc: Loc): Stmt {
    const name = this.checkName(c.find((x) => x.name === 'VariableName')!)
    const bases: Expr[] = []
    const argList = c.find((x) => x.name === 'ArgList')
    if (argList) {
      for (const a of kids(argList)) {
        if (PUNCT.has(a.name)) continue
        if (a.name === 'AssignOp' || a.name === '*' || a.name === '**') this.unsupported('Class keywords and metaclasses', 'Name one base class: `class Name(Base):`.', a)
        bases.push(this.expr(a))
      }
    }
    if (bases.length > 1) this.unsupported('Multiple inheritance', 'Derive from one class and keep the other as an attribute.', argList!)
    const items: ClassItem[] = []
    const body = c.find((x) => x.name === 'Body')
    if (!body) this.refuse('PY_SYNTAX', { detail: 'expected a block', fix: 'Write `:` and an indented block.' }, n)
    const members = (nodes: SyntaxNode[]) => {
      for (const m of nodes) {
        const mloc = this.at(m)
        switch (m.name) {
          case ':': case 'Comment': case 'PassStatement': continue
          case 'StatementGroup': members(kids(m).filter((x) => x.name !== ';')); continue
          case 'ExpressionStatement': {
            const e = this.exprList(kids(m), m)
            if (e.k === 'const' && typeof e.v === 'string') continue
            break
          }
          case 'FunctionDefinition': {
            const d = this.def(m, kids(m), mloc)
            if (d.k === 'def') {
              const nm = d.name
              if (/^__.*__$/.test(nm) && !CLASS_DUNDERS.has(nm)) {
                const named = [...CLASS_DUNDERS].filter((x) => !OPERATOR_DUNDER.test(x)).map((x) => `\`${x}\``).join(', ')
                this.unsupported(`\`${nm}\``, `The runtime calls only ${named} and the operator methods (\`__add__\`, \`__radd__\`, \`__iadd__\`, ...); write a plain method (\`def size(self)\`) and call it.`, m)
              }
              if (d.params.length === 0) this.unsupported('A method without `self`', 'Give the method `self` as its first parameter (or decorate it `@staticmethod`).', m)
              items.push({ kind: 'def', def: d })
            }
            continue
          }
          case 'DecoratedStatement': {
            // `@property`, `@staticmethod`, `@classmethod` on a method (one, by its bare name).
            const mc = kids(m)
            const decorators = mc.filter((x) => x.name === 'Decorator')
            const target = mc[mc.length - 1]!
            const text = decorators.length === 1 ? this.text(decorators[0]!) : ''
            // `@name.setter`: the setter of the property `name` defined above it (classes.ts checks that).
            const kind = /^@\s*(property|staticmethod|classmethod)\s*$/.exec(text)?.[1] as MethodDescriptor | undefined ?? (/^@\s*[A-Za-z_]\w*\.setter\s*$/.test(text) ? 'setter' : undefined)
            if (!kind || target.name !== 'FunctionDefinition') {
              this.unsupported('This method decorator', 'A method takes one of `@property`, `@name.setter`, `@staticmethod` and `@classmethod`.', m)
            }
            const d = this.def(target, kids(target), mloc)
            if (d.k === 'def') {
              if (/^__.*__$/.test(d.name)) this.unsupported(`\`@${kind}\` on \`${d.name}\``, 'Decorate a method of your own name.', m)
              if (kind !== 'staticmethod' && d.params.length === 0) this.unsupported(`A ${kind} without a first parameter`, kind === 'property' ? 'Write `def name(self):`.' : 'Write `def name(cls, ...):`.', m)
              if (kind === 'setter' && !text.replace(/\s/g, '').startsWith(`@${d.name}.`)) this.unsupported('A setter of another name', `Name the setter after its property: \`@${d.name}.setter\` on \`def ${d.name}(self, value)\`.`, m)
              if (kind === 'setter' && d.params.length !== 2) this.unsupported('A setter without two parameters', `Write \`def ${d.name}(self, value):\`.`, m)
              items.push({ kind: 'def', def: { ...d, descriptor: kind } })
            }
            continue
          }
          case 'AssignStatement': {
            const mc = kids(m)
            const t = mc[0]!
            if (t.name !== 'VariableName' || mc.filter((x) => x.name === 'AssignOp').length > 1) break
            if (/^__.*__$/.test(this.text(t))) { items.push(this.dunderAlias(t, mc, items, m)); continue }
            const annotated = mc[1]?.name === 'TypeDef'
            const at = mc.findIndex((x) => x.name === 'AssignOp')
            const value = at >= 0 ? this.exprList(mc.slice(at + 1), m) : null
            if (!annotated && !value) break
            items.push({ kind: 'attr', name: this.checkName(t), value, annotated, loc: mloc })
            continue
          }
        }
        this.unsupported('This statement in a class body', 'A class body holds methods (`def`) and attributes (`name = value`, `name: type = value`).', m)
      }
    }
    members(kids(body!))
    return { k: 'class', name, bases, items, decorators, loc }
  }


  /**
   * `__radd__ = __add__` (a special method that is another one of the class, a copy of its def) or
   * `__hash__ = None` (the class's instances are unhashable); no other dunder is assigned in a class body.
   */
  private dunderAlias(t: SyntaxNode, mc: SyntaxNode[], items: ClassItem[], m: SyntaxNode): ClassItem {
    const name = this.text(t)
    const rest = mc.slice(mc.findIndex((x) => x.name === 'AssignOp') + 1)
    const fix = 'In a class body, a special method is a `def`, another one of the class (`__radd__ = __add__`), or `__hash__ = None`.'
    if (!CLASS_DUNDERS.has(name) || rest.length !== 1) this.unsupported(`Assigning \`${name}\` in a class body`, fix, m)
    const v = rest[0]!
    if (name === '__hash__' && v.name === 'None') return { kind: 'attr', name, value: { k: 'const', v: null, loc: this.at(v) }, annotated: false, loc: this.at(m) }
    const src = v.name === 'VariableName' ? this.text(v) : ''
    const def = items.find((it): it is ClassItem & { kind: 'def' } => it.kind === 'def' && it.def.name === src && !it.def.descriptor)
    if (!def) return this.unsupported(`Assigning \`${name}\` in a class body`, fix, m)
    return { kind: 'def', def: { ...structuredClone(def.def), name, loc: this.at(m) } }
  }

  protected def(n: SyntaxNode, c: SyntaxNode[], loc: Loc): Stmt {
    if (c[0]!.name === 'async') this.unsupported('`async def`', 'Use a plain `def`: code blocks do not wait for anything.', c[0]!)
    const name = this.text(c.find((x) => x.name === 'VariableName')!)
    if (c.some((x) => x.name === 'TypeParamList')) this.unsupported('Type parameters', 'Remove the `[T]` list.', n)
    const plist = c.find((x) => x.name === 'ParamList')!
    const params = this.params(kids(plist).filter((x) => x.name !== '(' && x.name !== ')'), plist)
    this.yields.push(false)
    let body: Stmt[]
    let gen = false
    try {
      body = this.body(c.find((x) => x.name === 'Body'))
    } finally {
      gen = this.yields.pop()!
    }
    return gen ? { k: 'def', name, params, body: body!, loc, gen } : { k: 'def', name, params, body: body!, loc }
  }
}

/** The dunder methods a guest class may define (the runtime or the lowering calls them). */
export const CLASS_DUNDERS: ReadonlySet<string> = new Set([
  '__init__', '__repr__', '__str__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__', '__post_init__', '__enter__', '__exit__',
  // runtime/dunders.ts: what len, truth, iteration, `in`, subscripts, hashing and calls run.
  '__format__', '__len__', '__bool__', '__iter__', '__next__', '__reversed__', '__contains__', '__getitem__', '__setitem__', '__delitem__', '__hash__', '__call__',
  '__neg__', '__pos__', '__abs__', '__invert__', '__int__', '__float__', '__round__', '__index__',
  // runtime/attr-hooks.ts: every `x.name`, `x.name` when the lookup fails, `x.name = v`, `del x.name`.
  '__getattribute__', '__getattr__', '__setattr__', '__delattr__',
  // runtime/copy.ts: copy.copy and copy.deepcopy(x, memo).
  '__copy__', '__deepcopy__',
  // The binary operators, their reflected (`__radd__`) and in-place (`__iadd__`) forms.
  ...['add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'and', 'or', 'xor', 'lshift', 'rshift', 'matmul'].flatMap((n) => [`__${n}__`, `__r${n}__`, `__i${n}__`]),
  // divmod(a, b) (runtime/extended.ts), which has no in-place form.
  '__divmod__', '__rdivmod__',
])

/** The binary operator methods, named together in the refusal of another dunder. */
const OPERATOR_DUNDER = /^__(?:[ri]?(?:add|sub|mul|truediv|floordiv|mod|pow|and|or|xor|lshift|rshift|matmul)|r?divmod)__$/
