/**
 * Reading response bodies under a byte limit, and turning them into data.
 *
 * The limit is enforced while streaming: the read stops (and the caller
 * cancels the connection) as soon as one byte too many has arrived, so a
 * hostile server cannot make the host buffer more than `maxBytes`. For
 * compressed responses the count is of decoded bytes (zip bombs included).
 */

/** Minimal shape of a web ReadableStream reader (fetch Response bodies). */
interface ReaderLike {
  read(): Promise<{ done: boolean; value?: Uint8Array }>
  cancel(reason?: unknown): Promise<void>
}

/** A byte source: a Node stream / async iterable, or a web ReadableStream. */
export type ByteSource = AsyncIterable<Uint8Array> | { getReader(): ReaderLike }

/** Thrown by `readLimited` when the limit is exceeded; callers map it to their own code. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`)
    this.name = 'BodyTooLargeError'
  }
}

async function* iterateReader(reader: ReaderLike): AsyncGenerator<Uint8Array> {
  let finished = false
  try {
    while (true) {
      const { done, value } = await reader.read()
      if (done) { finished = true; return }
      if (value) yield value
    }
  } finally {
    // Stop the underlying connection when we leave early (limit, abort).
    if (!finished) await reader.cancel().catch(() => undefined)
  }
}

function toIterable(source: ByteSource): AsyncIterable<Uint8Array> {
  if ('getReader' in source && typeof source.getReader === 'function') return iterateReader(source.getReader())
  return source as AsyncIterable<Uint8Array>
}

/** Read all bytes of `source`, throwing BodyTooLargeError as soon as more than `maxBytes` arrive. */
export async function readLimited(source: ByteSource | null | undefined, maxBytes: number): Promise<Uint8Array> {
  if (!source) return new Uint8Array(0)
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of toIterable(source)) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk
    total += bytes.byteLength
    if (total > maxBytes) throw new BodyTooLargeError(maxBytes)
    chunks.push(bytes)
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const c of chunks) { out.set(c, offset); offset += c.byteLength }
  return out
}

/** True for `application/json`, `text/json` and `+json` media types. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json')
}

/** Decode bytes as UTF-8 text (invalid sequences become U+FFFD, never an exception). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes)
}
