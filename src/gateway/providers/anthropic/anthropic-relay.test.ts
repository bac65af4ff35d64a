import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { anthropicSettings } from '../../../../test/helpers/anthropic-settings.ts';
import { callContext } from '../../../../test/helpers/call-context.ts';
import {
  type MockAnthropicServer,
  startMockAnthropic,
} from '../../../../test/helpers/mock-anthropic-server.ts';
import type { RelayedEvent } from '../messages-relay.ts';
import { ProviderError } from '../provider-error.ts';
import { AnthropicProvider } from './anthropic-provider.ts';

const KEY = 'sk-ant-relay-test-key';

const settings = (origin: string) => anthropicSettings(origin, KEY);

const BODY = '{"model":"gw-name","max_tokens":9,\n"messages":[{"role":"user","content":"hi"}], "n":1.0}';

describe('AnthropicRelay: the same-vendor lane of an anthropic slot', () => {
  let mock: MockAnthropicServer;
  let provider: AnthropicProvider;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
    provider = new AnthropicProvider(settings(mock.origin));
  });
  after(async () => {
    await provider.close();
    await mock.close();
  });

  it('sends the body with only the model replaced, the default version when the client named none, and the slot’s key', async () => {
    mock.replyNext({
      text: 'ok',
      usage: { inputTokens: 5, cacheReadTokens: 100, cacheWrite1hTokens: 10, outputTokens: 2 },
    });
    const answer = await provider.relay.message(
      { model: 'claude-sonnet-4-5', body: Buffer.from(BODY), headers: {} },
      callContext(),
    );
    const sent = mock.requests.at(-1);
    assert.equal(sent?.raw.toString('utf8'), BODY.replace('"gw-name"', '"claude-sonnet-4-5"'));
    assert.equal(sent?.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent?.headers['anthropic-beta'], undefined);
    assert.equal(sent?.headers['x-api-key'], KEY);
    assert.equal(answer.model, 'claude-sonnet-4-5-20250929');
    assert.equal(answer.finishReason, 'stop');
    assert.deepEqual(answer.usage, {
      inputTokens: 115,
      outputTokens: 2,
      cacheReadTokens: 100,
      cacheWriteTokens: 10,
      cacheWrite1hTokens: 10,
    });
    assert.equal(JSON.parse(answer.text).content[0].text, 'ok');
  });

  it('streams every event as sent, with the usage so far on message_start and message_delta', async () => {
    mock.replyNext({ text: 'streamed', usage: { inputTokens: 5, outputTokens: 3 } });
    const events: RelayedEvent[] = [];
    const body = BODY.replace('"max_tokens":9', '"max_tokens":9,"stream":true');
    const headers = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a-1,b-2' };
    for await (const event of provider.relay.stream(
      { model: 'claude-sonnet-4-5', body: Buffer.from(body), headers },
      callContext(),
    ))
      events.push(event);
    assert.equal(mock.requests.at(-1)?.headers['anthropic-beta'], 'a-1,b-2');
    assert.equal(events[0]?.event, 'message_start');
    assert.equal(events[0]?.model, 'claude-sonnet-4-5-20250929');
    assert.deepEqual(events[0]?.usage, {
      inputTokens: 5,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const delta = events.find((event) => event.event === 'message_delta');
    assert.deepEqual(delta?.usage, {
      inputTokens: 5,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    assert.equal(delta?.finishReason, 'stop');
    assert.equal(events.at(-1)?.event, 'message_stop');
    // Only the events the gateway accounts from are read; the others carry nothing of its own.
    for (const event of events.filter((e) => e.event.startsWith('content_block'))) {
      assert.deepEqual(Object.keys(event).sort(), ['data', 'event']);
    }
  });

  it('an error status is a ProviderError the caller retries or passes on, as the adapter’s', async () => {
    mock.failNext(1, {
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'x' } },
    });
    await assert.rejects(
      provider.relay.message(
        { model: 'claude-sonnet-4-5', body: Buffer.from(BODY), headers: {} },
        callContext(),
      ),
      (error: unknown) => error instanceof ProviderError && error.status === 529 && error.retryable,
    );
  });
});
