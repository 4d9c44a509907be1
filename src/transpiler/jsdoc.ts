/**
 * JSDoc for the entry function: its description and `@param` tags.
 *
 * Since acorn cannot parse TypeScript annotations, JSDoc types are AJS's
 * type annotations: `@param {integer} count - how many`. Destructured
 * parameters are documented as `@param {string} input.name` or directly as
 * `@param {string} name`.
 */

import type { Comment } from 'acorn'

export interface JsDocParam {
  /** The dotted path as written (`input.city`, `city`, `user.name`). */
  path: string
  type?: string
  description?: string
  optional: boolean
  /** Offset of the tag in the source (for warnings). */
  offset: number
}

export interface JsDoc {
  description?: string
  params: JsDocParam[]
}

/** The block comment directly above `start` (only whitespace between), if it is a JSDoc comment. */
export function jsDocBefore(source: string, comments: readonly Comment[], start: number): Comment | undefined {
  for (let i = comments.length - 1; i >= 0; i--) {
    const c = comments[i]!
    if (c.end > start) continue
    return source.slice(c.end, start).trim() === '' ? c : undefined
  }
  return undefined
}

const PARAM = /^@param\s*(?:\{([^}]*)\})?\s*(\[[^\]]*\]|[\w$.]+)\s*(?:-\s*)?([\s\S]*)$/

export function parseJsDoc(comment: Comment): JsDoc {
  // Strip the leading `*` of the comment body and of every line.
  const raw = comment.value.slice(1).split('\n')
  const description: string[] = []
  const params: JsDocParam[] = []
  let current: { text: string[]; offset: number } | undefined
  const blocks: Array<{ text: string[]; offset: number }> = []
  let offset = comment.start + 3
  for (const rawLine of raw) {
    const line = rawLine.replace(/^\s*\*? ?/, '')
    if (/^\s*@/.test(line)) {
      current = { text: [line.trim()], offset }
      blocks.push(current)
    } else if (current) current.text.push(line.trim())
    else description.push(line)
    offset += rawLine.length + 1
  }
  for (const b of blocks) {
    const m = PARAM.exec(b.text.join(' ').trim())
    if (!m) continue
    let name = m[2]!
    let optional = false
    if (name.startsWith('[')) {
      optional = true
      name = name.slice(1, -1).split('=')[0]!.trim()
    }
    const desc = m[3]!.trim()
    params.push({ path: name, type: m[1]?.trim() || undefined, description: desc || undefined, optional, offset: b.offset })
  }
  const text = description.join('\n').trim()
  return { description: text || undefined, params }
}
