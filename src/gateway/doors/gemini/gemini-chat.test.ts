import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiChat } from './gemini-chat.ts';

const structured = {
  contents: [{ parts: [{ text: 'As JSON' }] }],
  generationConfig: {
    temperature: 0.2,
    responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object' },
  },
};
const target = { model: 'm', stream: false, sse: false };

describe('geminiChat', () => {
  it('without the lane, structured output is the structured-output use case', () => {
    const read = geminiChat(target, false).read(structured);
    assert.equal(read.use, 'json');
    assert.equal(geminiChat(target, false).passThrough, undefined);
  });

  it('on the lane, an attempt that falls over to another kind reads structured output as a chat (no 500)', () => {
    const door = geminiChat(target);
    assert.deepEqual(door.passThrough?.slotKinds, ['gemini', 'vertex']);
    assert.equal(door.passThrough?.wire, 'gemini');
    const read = door.read(structured);
    assert.equal(read.use, 'chat');
    assert.equal(read.input.temperature, 0.2);
    assert.equal(read.input.messages[0]?.content, 'As JSON');
  });
});
