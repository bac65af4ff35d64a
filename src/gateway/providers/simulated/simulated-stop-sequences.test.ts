import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulatedSlot } from '../../../../test/helpers/simulated-slot.ts';
import { encodingTokenizer } from '../../domain/encoding-tokenizer.ts';
import { o200kEncoding } from '../../tokenizer/o200k-encoding.ts';
import type { ChatCall, ChatResult, ChatStreamEvent } from '../provider.ts';
import { SimulatedProvider } from './simulated-provider.ts';

const tokenizer = encodingTokenizer(o200kEncoding());
const REPLY = 'Alpha beta. Gamma delta; epsilon ### zeta eta theta.';

const provider = new SimulatedProvider(
  simulatedSlot({ chunkTokens: 2, allowRequestDirectives: true }),
  tokenizer,
);

const context = {
  signal: new AbortController().signal,
  requestId: 'r',
  attempt: 0,
  metadata: { simulated: { reply: REPLY } },
};

function call(extra: Partial<ChatCall>): ChatCall {
  return { model: 'chat', messages: [{ role: 'user', content: 'hello' }], ...extra };
}

/** The stream gathered into what a plain call answers. */
async function streamed(chat: ChatCall): Promise<ChatResult> {
  const events: ChatStreamEvent[] = [];
  for await (const event of provider.streamChat(chat, context)) events.push(event);
  let content = '';
  const result: ChatResult = { model: '', content: '', finishReason: 'other', usage: undefined };
  for (const event of events) {
    if (event.type === 'delta') content += event.content;
    else if (event.type === 'model') result.model = event.model;
    else if (event.type === 'usage') result.usage = event.usage;
    else if (event.type === 'finish') {
      result.finishReason = event.reason;
      if (event.stopSequence !== undefined) result.stopSequence = event.stopSequence;
    }
  }
  result.content = content;
  return result;
}

describe('the simulated provider honours stop sequences', () => {
  it('cuts before the earliest of several, says which, and counts only the text kept', async () => {
    const result = await provider.chat(call({ stop: ['###', ';', 'theta'] }), context);
    assert.equal(result.content, 'Alpha beta. Gamma delta');
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.stopSequence, ';');
    assert.equal(result.usage?.outputTokens, await tokenizer.count(['Alpha beta. Gamma delta']));
  });

  it('leaves the answer whole when no sequence occurs', async () => {
    const plain = await provider.chat(call({}), context);
    const result = await provider.chat(call({ stop: ['never here'] }), context);
    assert.equal(plain.content, REPLY);
    assert.deepEqual(result, plain);
    assert.equal('stopSequence' in result, false);
  });

  it('with maxTokens too, whichever comes first ends the answer', async () => {
    const stopFirst = await provider.chat(call({ stop: ['.'], maxTokens: 10 }), context);
    assert.equal(stopFirst.content, 'Alpha beta');
    assert.equal(stopFirst.finishReason, 'stop');
    assert.equal(stopFirst.stopSequence, '.');
    const lengthFirst = await provider.chat(call({ stop: ['zeta'], maxTokens: 3 }), context);
    assert.equal(lengthFirst.finishReason, 'length');
    assert.equal(lengthFirst.stopSequence, undefined);
    assert.equal(lengthFirst.usage?.outputTokens, 3);
    assert.ok(
      REPLY.startsWith(lengthFirst.content) && lengthFirst.content.length < 'Alpha beta. Gamma delta'.length,
    );
  });

  it('a stream sends the same text, reason, sequence and usage as the plain answer', async () => {
    for (const extra of [{ stop: ['###', 'delta'] }, { stop: ['zeta'], maxTokens: 3 }, { stop: ['nope'] }]) {
      assert.deepEqual(await streamed(call(extra)), await provider.chat(call(extra), context));
    }
  });
});
