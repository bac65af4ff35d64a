import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  jsonLines,
  MAX_DESCRIPTION_BYTES,
  MAX_REFUSAL_BYTES,
  VendorRefusal,
  vendorCall,
  vendorJson,
} from './vendor-api.ts';

/** A response whose body arrives in the given chunks. */
function answerOf(chunks: readonly string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body);
}

async function readAll(answer: Response, maxLineChars?: number): Promise<unknown[]> {
  const lines: unknown[] = [];
  for await (const line of jsonLines(answer, maxLineChars)) lines.push(line);
  return lines;
}

describe("jsonLines: a vendor batch's result file", () => {
  it('reads lines split across chunks, blank lines skipped, the last without a newline', async () => {
    const lines = await readAll(answerOf(['{"a":', '1}\n\n{"b"', ':2}\n{"c":3}']));
    assert.deepEqual(lines, [{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('refuses a line past the bound instead of holding it, however it arrives', async () => {
    const long = `{"x":"${'y'.repeat(200)}"}`;
    await assert.rejects(
      readAll(answerOf(['{"a":1}\n', long.slice(0, 100), long.slice(100), '\n']), 64),
      /longer than 64 characters/,
    );
    // The same lines under a bound they fit are read.
    assert.equal((await readAll(answerOf(['{"a":1}\n', long, '\n']), 1024)).length, 2);
  });
});

describe('reading what a vendor answers, bounded', () => {
  it('keeps a refusal’s first 64 KiB at most: a longer one is named, not held', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('x'.repeat(MAX_REFUSAL_BYTES + 1));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const refusal = await vendorCall(`http://127.0.0.1:${port}/v1/batches`, { method: 'POST' }).then(
        () => assert.fail('a 400 is a refusal'),
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof VendorRefusal);
      assert.equal(refusal.status, 400);
      assert.match(refusal.body, /longer than 65536 bytes/);
    } finally {
      server.close();
    }
  });

  it('reads a description up to its bound and refuses a longer one', async () => {
    assert.deepEqual(await vendorJson(new Response('{"id":"batch_1"}')), { id: 'batch_1' });
    const long = `{"id":"${'x'.repeat(MAX_DESCRIPTION_BYTES)}"}`;
    await assert.rejects(vendorJson(answerOf([long.slice(0, 1000), long.slice(1000)])), /longer than/);
  });
});
