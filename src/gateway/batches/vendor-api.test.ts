import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonLines } from './vendor-api.ts';

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
