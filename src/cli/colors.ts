/** ANSI styling that turns into identity functions when colors are off. */
const CODES = { red: [31, 39], yellow: [33, 39], green: [32, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22] } as const

export type Palette = Record<keyof typeof CODES, (s: string) => string>

export function palette(enabled: boolean): Palette {
  const out = {} as Palette
  for (const [name, [open, close]] of Object.entries(CODES)) {
    out[name as keyof Palette] = enabled ? (s) => `\u001b[${open}m${s}\u001b[${close}m` : (s) => s
  }
  return out
}
