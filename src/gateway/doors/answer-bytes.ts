/**
 * Where an answer written byte by byte (the embeddings answers) is written, and what is sent:
 * for an answer of up to SCRATCH_BYTES, one buffer reused by every answer, read out as a string
 * once written; a larger one gets its own Buffer, sent as it is.
 *
 * Why not a fresh Buffer per answer: its bytes are an ArrayBuffer's, outside V8's heap ("external
 * memory"), freed only when a collection finds the Buffer dead, and V8 starts a full
 * (mark-compact) collection whenever external memory has grown 64 MB past what the last one left.
 * An embeddings request puts little on V8's own heap, so the cheap young collections that free
 * dead Buffers came seldom, while every request added two ArrayBuffers of about 32 KB (the
 * upstream's body, which undici hands over as a Buffer, and the answer): under the bench's
 * embed-json load at 50 connections the gateway ran three times as many full collections as with
 * the body decoded to a string, and V8's helper threads took 80-140 µs of CPU per request against
 * 15 with the answer as a string (bench/README.md; docs/performance.md). A string lives on V8's
 * heap, young, and dies young; Node writes it to the socket without an ArrayBuffer.
 */

/** Big enough for a few 1,536-dimension vectors; held once, for the process's life. */
const SCRATCH_BYTES = 256 * 1024;
let scratch: Buffer | undefined;

/** Room for at most `maxBytes` of answer; give what was written to `answerPayload`. */
export function answerBytes(maxBytes: number): Buffer {
  if (maxBytes > SCRATCH_BYTES) return Buffer.allocUnsafe(maxBytes);
  scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return scratch;
}

/**
 * The first `length` bytes written to `bytes` (from `answerBytes`), as Fastify sends them: the
 * shared buffer's read out as UTF-8 text (the bytes are UTF-8: the same bytes go out), which
 * frees it for the next answer; a buffer of its own as it is.
 */
export function answerPayload(bytes: Buffer, length: number): string | Buffer {
  return bytes === scratch ? bytes.toString('utf8', 0, length) : bytes.subarray(0, length);
}
