/**
 * Floats as text, exactly as CPython writes them: `repr` is the shortest
 * round-tripping form with Python's switch to exponent notation (`1e-05`,
 * `1e+16`), and fixed/exponent formatting rounds the exact binary value half
 * to even (`format(2.675, '.2f') == '2.67'`, `format(0.125, '.2f') == '0.12'`).
 */

/** repr(float) / str(float). */
export function floatRepr(v: number): string {
  if (Number.isNaN(v)) return 'nan'
  if (v === Infinity) return 'inf'
  if (v === -Infinity) return '-inf'
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0'
  const [mant, expText] = v.toExponential().split('e') as [string, string]
  const neg = mant.startsWith('-')
  const digits = mant.replace('-', '').replace('.', '')
  const exp = Number(expText)
  return (neg ? '-' : '') + placeDigits(digits, exp, true)
}

/** Digits d1d2d3... with the decimal exponent of d1, written the way repr does. */
function placeDigits(digits: string, exp: number, keepPointZero: boolean): string {
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`
    if (digits.length <= exp + 1) return digits + '0'.repeat(exp + 1 - digits.length) + (keepPointZero ? '.0' : '')
    return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
}

/** The exact decimal value of a finite double: |v| = D × 10^E with D a digit string. */
export function exactDecimal(v: number): { digits: string; exp: number } {
  const a = Math.abs(v)
  if (a === 0) return { digits: '0', exp: 0 }
  const buf = new DataView(new ArrayBuffer(8))
  buf.setFloat64(0, a)
  const hi = buf.getUint32(0), lo = buf.getUint32(4)
  const biased = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo)
  let e2: number
  if (biased === 0) e2 = -1074
  else { mant |= 1n << 52n; e2 = biased - 1075 }
  if (e2 >= 0) return { digits: (mant << BigInt(e2)).toString(), exp: 0 }
  // mant / 2^k == mant * 5^k / 10^k
  const k = -e2
  return { digits: (mant * 5n ** BigInt(k)).toString(), exp: -k }
}

/** Round the integer D × 10^E to a multiple of 10^at, half to even; returns the digits of D' with |v| ≈ D' × 10^at. */
function roundDigits(digits: string, exp: number, at: number): string {
  if (exp >= at) return digits + '0'.repeat(exp - at)
  const drop = at - exp
  if (drop > digits.length) {
    // Everything is dropped: 0, or 1 if the value exceeds half a unit.
    if (drop === digits.length + 0) return '0'
    return '0'
  }
  const keep = digits.slice(0, digits.length - drop) || '0'
  const rest = digits.slice(digits.length - drop)
  const first = rest.charCodeAt(0) - 48
  let up = false
  if (first > 5) up = true
  else if (first === 5) {
    const tail = rest.slice(1)
    if (/[1-9]/.test(tail)) up = true
    else up = (keep.charCodeAt(keep.length - 1) - 48) % 2 === 1
  }
  if (!up) return keep.replace(/^0+(?=\d)/, '')
  return (BigInt(keep) + 1n).toString()
}

/** Half-unit case when every digit is dropped (value below one unit). */
function roundAllDropped(digits: string, exp: number, at: number): string {
  // value = D × 10^exp, unit = 10^at; compare 2·value with unit.
  const twice = BigInt(digits) * 2n
  const drop = at - exp
  const unit = 10n ** BigInt(drop)
  if (twice > unit) return '1'
  return '0' // == unit rounds to even 0
}

function roundTo(digits: string, exp: number, at: number): string {
  const drop = at - exp
  if (drop > digits.length) return roundAllDropped(digits, exp, at)
  if (drop === digits.length) {
    // keep is empty: compare with half a unit
    return roundAllDropped(digits, exp, at)
  }
  return roundDigits(digits, exp, at)
}

/** format(v, '.{prec}f') without sign handling: the digits of |v|. */
export function fixedAbs(v: number, prec: number): string {
  // toFixed rounds the exact binary value too, so it is CPython's digits except on an exact tie
  // (CPython rounds half to even, toFixed up), and it only works below 1e21.
  if (prec <= 20 && v < 1e21 && !exactTie(v, prec)) return v.toFixed(prec)
  const { digits, exp } = exactDecimal(v)
  const n = roundTo(digits, exp, -prec)
  if (prec === 0) return n
  const padded = n.padStart(prec + 1, '0')
  return `${padded.slice(0, padded.length - prec)}.${padded.slice(padded.length - prec)}`
}

/**
 * Whether |v| lies exactly halfway between two multiples of 10^-prec: its exact decimal ends in a 5
 * at the (prec+1)-th fractional digit, i.e. v·2^(prec+1) is an integer and v·2^prec is not.
 */
function exactTie(v: number, prec: number): boolean {
  let t = v
  for (let k = 0; k <= prec; k++) {
    if (Number.isInteger(t)) return false
    t *= 2
  }
  return Number.isInteger(t)
}

/** format(v, '.{prec}e') of |v|: mantissa digits and exponent. */
export function expParts(v: number, prec: number): { mant: string; exp: number } {
  if (v === 0) return { mant: prec > 0 ? `0.${'0'.repeat(prec)}` : '0', exp: 0 }
  const { digits, exp } = exactDecimal(v)
  const lead = digits.length - 1 + exp // decimal exponent of the first digit
  let n = roundTo(digits, exp, lead - prec)
  let e = lead
  if (n.length > prec + 1) { n = n.slice(0, prec + 1); e += 1 }
  const mant = prec > 0 ? `${n[0]}.${n.slice(1)}` : n
  return { mant, exp: e }
}

export const expText = (exp: number): string => `e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`

/** round(v, n) for a float: the correctly rounded (half even) float. */
export function roundFloat(v: number, n: number): number {
  if (!Number.isFinite(v) || v === 0) return v
  if (n > 330) return v
  const { digits, exp } = exactDecimal(v)
  if (n < -330) return v < 0 ? -0 : 0
  const r = roundTo(digits, exp, -n)
  const out = Number(`${r}e${-n}`)
  return v < 0 ? -out : out
}

/** 'g' formatting of |v| with precision p (>= 1); `alt` keeps trailing zeros. */
export function generalAbs(v: number, p: number, alt: boolean): string {
  if (v === 0) return alt ? `0.${'0'.repeat(p - 1)}` : '0'
  const { exp } = expParts(v, p - 1)
  if (exp >= -4 && exp < p) {
    let s = fixedAbs(v, p - 1 - exp)
    if (!alt && s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '')
    if (alt && !s.includes('.')) s += '.'
    return s
  }
  let { mant } = expParts(v, p - 1)
  if (!alt && mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '')
  if (alt && !mant.includes('.')) mant += '.'
  return mant + expText(exp)
}

/** repr-style digits (shortest) of |v| with Python's 'r' rules but with a chosen exponent switch (used by the '' format type with precision). */
export function shortestAbs(v: number): { digits: string; exp: number } {
  const [mant, e] = Math.abs(v).toExponential().split('e') as [string, string]
  return { digits: mant.replace('.', ''), exp: Number(e) }
}

export { placeDigits }
