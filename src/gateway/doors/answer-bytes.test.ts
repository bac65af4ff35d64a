import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerBytes, answerPayload } from './answer-bytes.ts';

function writeAnswer(text: string): string | Buffer {
  const bytes = answerBytes(3 * text.length);
  return answerPayload(bytes, bytes.write(text, 0, 'utf8'));
}

test('an answer written to the shared buffer is sent as its own text: the next answer does not change it', () => {
  const first = writeAnswer('{"model":"m\u00e9\u2028","embeddings":[[1,2]]}');
  const second = writeAnswer('{"x":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}');
  assert.equal(first, '{"model":"m\u00e9\u2028","embeddings":[[1,2]]}');
  assert.equal(second, '{"x":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}');
});

test('a larger answer gets bytes of its own, sent as they are', () => {
  const text = `[${'0.5,'.repeat(100_000)}1]`;
  const payload = writeAnswer(text);
  assert.ok(Buffer.isBuffer(payload));
  assert.equal(payload.toString('utf8'), text);
  assert.notEqual(answerBytes(10), answerBytes(1_000_000), 'the shared buffer is not handed out for it');
});
