import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CACHE_USAGE } from '../../domain/usage.ts';
import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';
import { answerAsStream } from '../../services/use-cases/run-chat-stream.ts';
import { toNativeEvents } from './to-native-events.ts';

const thinking = { type: 'thinking' as const, vendor: 'anthropic' as const, text: 'Hmm.', signature: 'sig' };
const answer: ChatAnswer = {
  id: 'chat_1',
  provider: 'provider-b',
  model: 'claude-sonnet-4-5',
  message: { role: 'assistant', content: 'Hi.' },
  finishReason: 'stop',
  thinking: [thinking],
  usage: { tokensIn: 5, tokensOut: 3, estimatedCost: 0, estimated: false, ...NO_CACHE_USAGE },
  latencyMs: 1,
};

describe('native stream events', () => {
  it("leaves the answer's thinking out: no thinking event, none in done", async () => {
    const generator = toNativeEvents(answerAsStream(answer));
    let text = '';
    for (;;) {
      const next = await generator.next();
      text += next.value;
      if (next.done) break;
    }
    assert.deepEqual(
      [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]),
      ['start', 'delta', 'done'],
    );
    assert.equal(text.includes('sig'), false);
    assert.equal(text.includes('thinking'), false);
  });
});
