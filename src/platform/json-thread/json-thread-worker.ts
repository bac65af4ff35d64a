// The JSON thread (see json-thread.ts): large request bodies are decoded and parsed here, and
// large upstream bodies written, so that the event loop never holds a megabyte of JSON. One
// message at a time: each is one synchronous call.
import { parentPort } from 'node:worker_threads';
import { jsonBytesFault } from './json-bytes-fault.ts';
import { MAX_CROSSING_DEPTH, nestsDeeperThan } from './json-depth.ts';
import type { JsonThreadReply, JsonThreadRequest } from './json-thread-protocol.ts';
import { ownedBytes } from './owned-bytes.ts';
import { parseJsonBody } from './parse-json-body.ts';

if (parentPort === null) throw new Error('json-thread-worker runs as a worker thread');
const port = parentPort;

port.on('message', (request: JsonThreadRequest) => {
  const reply = answer(request);
  try {
    port.postMessage(reply, 'bytes' in reply ? [reply.bytes] : 'returned' in reply ? [reply.returned] : []);
  } catch (error) {
    // A reply that cannot be sent is an error reply, not the end of the thread.
    port.postMessage({ id: request.id, ok: false, message: messageOf(error) } satisfies JsonThreadReply);
  }
});

function answer(request: JsonThreadRequest): JsonThreadReply {
  try {
    if (request.op === 'check') {
      // The verdict only, from the bytes, no value built: they go back as they came.
      const { bytes: returned, byteOffset, byteLength } = request;
      const fault = jsonBytesFault(new Uint8Array(returned, byteOffset, byteLength));
      if (fault !== undefined) return { id: request.id, ok: false, message: fault };
      return { id: request.id, ok: true, bytes: returned, byteOffset, byteLength };
    }
    if (request.op === 'parse') {
      const bytes = Buffer.from(request.bytes, request.byteOffset, request.byteLength);
      const value = parseJsonBody(bytes.toString('utf8'));
      if (nestsDeeperThan(value, MAX_CROSSING_DEPTH)) {
        const { bytes: returned, byteOffset, byteLength } = request;
        return { id: request.id, returned, byteOffset, byteLength };
      }
      return { id: request.id, ok: true, value };
    }
    const text = JSON.stringify(request.value);
    if (text === undefined) return { id: request.id, ok: false, message: 'the value has no JSON form' };
    // Sent without a copy (a large string's bytes are a buffer of their own already).
    const owned = ownedBytes(Buffer.from(text));
    return {
      id: request.id,
      ok: true,
      bytes: owned.buffer as ArrayBuffer,
      byteOffset: 0,
      byteLength: owned.byteLength,
    };
  } catch (error) {
    return { id: request.id, ok: false, message: messageOf(error) };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
