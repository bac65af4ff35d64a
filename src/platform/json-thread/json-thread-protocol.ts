/**
 * What the main thread asks of the JSON thread (json-thread.ts, json-thread-worker.ts): parse a
 * request body's bytes, or write a value as JSON bytes. The bytes travel as transferred
 * ArrayBuffers, never copied.
 */
export type JsonThreadRequest =
  | { id: number; op: 'parse'; bytes: ArrayBuffer; byteOffset: number; byteLength: number }
  | { id: number; op: 'check'; bytes: ArrayBuffer; byteOffset: number; byteLength: number }
  | { id: number; op: 'stringify'; value: unknown };

/**
 * The answer to the request of the same id: the parsed value, or the written bytes (a check: the
 * request's own bytes, read and found to be JSON, handed back with no value); `ok: false`
 * with a message when the text is not JSON or poisons a prototype (the parse), or has no JSON
 * form (the write); `returned` with the request's own bytes when the value nests too deep to be
 * sent back (json-depth.ts), for the main thread to read itself.
 */
export type JsonThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: true; bytes: ArrayBuffer; byteOffset: number; byteLength: number }
  | { id: number; ok: false; message: string }
  | { id: number; returned: ArrayBuffer; byteOffset: number; byteLength: number };
