import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calcPrice, extractUsage, findProvider } from '@pydantic/genai-prices';
import { roundCost } from '../../src/gateway/domain/pricing.ts';
import type { UsageRecord } from '../../src/storage/ports.ts';
import { APP, type Harness, shareGateway, startGateway } from '../helpers/gateway-harness.ts';
import { startMockAnthropic } from '../helpers/mock-anthropic-server.ts';
import { MockGeminiServer } from '../helpers/mock-gemini-server.ts';
import { startMockOpenAI } from '../helpers/mock-openai-server.ts';
import {
  roughTokens,
  SCRIPTED_PROMPT_TOKENS,
  type ScriptedCache,
  scriptedCacheUsage,
} from '../helpers/scripted-reply.ts';

/**
 * Prompt-cache accounting (CONTRACT 5.3) through the native API, per vendor, against the strict
 * vendor mocks: each reports its cache counts in its own fields, the gateway answers
 * tokensInCacheRead/tokensInCacheWrite (part of tokensIn), the ledger keeps reads and 5-minute and
 * 1-hour writes apart, and a streamed and a plain answer give the same counts.
 */

interface Upstream {
  env: Record<string, string>;
  replyNext(reply: { text: string; promptCache: ScriptedCache }): void;
  close(): Promise<void>;
}

interface VendorCase {
  name: string;
  start: () => Promise<Upstream>;
  /** What the mock reports. */
  cache: ScriptedCache;
  /** What the gateway keeps of it: OpenAI and Gemini report reads only. */
  kept: { read: number; write5m: number; write1h: number };
  /** /v1/json answers in the model's text (not through Anthropic's forced tool, which the script has no form for). */
  jsonAsText: boolean;
}

const VENDORS: VendorCase[] = [
  {
    name: 'Anthropic',
    start: async () => {
      const mock = await startMockAnthropic({ eventDelayMs: 0 });
      return {
        env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
        replyNext: ({ text, promptCache }) =>
          mock.replyNext({ text, usage: scriptedCacheUsage('anthropic', promptCache) }),
        close: () => mock.close(),
      };
    },
    cache: { read: 24_000, write5m: 1_200, write1h: 300 },
    kept: { read: 24_000, write5m: 1_200, write1h: 300 },
    jsonAsText: false,
  },
  {
    name: 'OpenAI',
    start: async () => {
      const mock = await startMockOpenAI({ apiKey: 'k' });
      return {
        env: { PROVIDER_A_KIND: 'openai', PROVIDER_A_BASE_URL: mock.baseUrl, PROVIDER_A_API_KEY: 'k' },
        replyNext: ({ text, promptCache }) =>
          mock.replyNext({ text, usage: scriptedCacheUsage('openai', promptCache) }),
        close: () => mock.close(),
      };
    },
    cache: { read: 1_024 },
    kept: { read: 1_024, write5m: 0, write1h: 0 },
    jsonAsText: true,
  },
  {
    name: 'Gemini',
    start: async () => {
      const mock = await MockGeminiServer.start({ apiKey: 'k', streamEventDelayMs: 0 });
      return {
        env: { PROVIDER_A_KIND: 'gemini', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
        replyNext: ({ text, promptCache }) =>
          mock.replyNext({ text, usage: scriptedCacheUsage('gemini', promptCache) }),
        close: () => mock.close(),
      };
    },
    cache: { read: 2_048 },
    kept: { read: 2_048, write5m: 0, write1h: 0 },
    jsonAsText: true,
  },
];

const messages = [{ role: 'user', content: 'Summarise the repository.' }];

async function ledgerRow(gw: Harness, id: string): Promise<UsageRecord> {
  await gw.app.recorder.flush();
  const row = (await gw.app.storage.usage.readRecords({ limit: 1000 })).find((r) => r.id === id);
  assert.ok(row !== undefined, `ledger row ${id}`);
  return row;
}

for (const vendor of VENDORS) {
  describe(`prompt-cache counts from a ${vendor.name} slot`, () => {
    let upstream: Upstream;
    before(async () => {
      upstream = await vendor.start();
    });
    const gw = shareGateway(() => ({ env: upstream.env }));
    after(() => upstream.close());

    const { read, write5m, write1h } = vendor.kept;
    const tokensIn = SCRIPTED_PROMPT_TOKENS + read + write5m + write1h;

    it('answers them in usage and keeps them in the ledger, the same for a plain and a streamed answer', async () => {
      upstream.replyNext({ text: 'A gateway.', promptCache: vendor.cache });
      const plain = await gw.chat({ messages, provider: 'provider-a' });
      assert.equal(plain.status, 200, plain.text);
      upstream.replyNext({ text: 'A gateway.', promptCache: vendor.cache });
      const streamed = await gw.stream({ messages, provider: 'provider-a' });
      const done = streamed.events.at(-1);
      assert.equal(done?.event, 'done', streamed.text);
      const streamedAnswer = done?.data as { id: string; usage: Record<string, unknown> };

      for (const usage of [plain.body.usage, streamedAnswer.usage]) {
        assert.equal(usage.tokensIn, tokensIn, 'cached tokens stay part of tokensIn');
        assert.equal(usage.tokensInCacheRead, read);
        assert.equal(usage.tokensInCacheWrite, write5m + write1h);
        assert.equal(usage.estimated, false);
        assert.equal('tokensInCacheWrite1h' in usage, false, 'the 1-hour share is the Anthropic door’s');
      }
      assert.equal(streamedAnswer.usage.estimatedCost, plain.body.usage.estimatedCost);

      for (const id of [plain.body.id, streamedAnswer.id]) {
        const row = await ledgerRow(gw, id);
        assert.deepEqual(
          [row.tokensIn, row.cacheReadTokens, row.cacheWrite5mTokens, row.cacheWrite1hTokens],
          [tokensIn, read, write5m, write1h],
        );
        const [attempt] = row.attempts;
        assert.deepEqual(
          [attempt?.cacheReadTokens, attempt?.cacheWrite5mTokens, attempt?.cacheWrite1hTokens],
          [read, write5m, write1h],
        );
      }
    });

    it('answers zeros when the upstream reports no cache', async () => {
      upstream.replyNext({ text: 'Plain.', promptCache: {} });
      const plain = await gw.chat({ messages, provider: 'provider-a' });
      assert.deepEqual(
        [plain.body.usage.tokensIn, plain.body.usage.tokensInCacheRead, plain.body.usage.tokensInCacheWrite],
        [SCRIPTED_PROMPT_TOKENS, 0, 0],
      );
    });

    if (vendor.jsonAsText)
      it('answers them on /v1/json too', async () => {
        upstream.replyNext({ text: '{"answer":"yes"}', promptCache: vendor.cache });
        const answer = await gw.json({
          messages,
          provider: 'provider-a',
          schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
        });
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(answer.body.data, { answer: 'yes' });
        assert.deepEqual(
          [
            answer.body.usage.tokensIn,
            answer.body.usage.tokensInCacheRead,
            answer.body.usage.tokensInCacheWrite,
          ],
          [tokensIn, read, write5m + write1h],
        );
      });

    it('sums them in GET /v1/usage', async () => {
      const totals = await gw.get('/v1/usage');
      assert.equal(totals.status, 200, totals.text);
      // The answers with the cache (two, three with /v1/json), one without, from the tests above.
      const withCache = vendor.jsonAsText ? 3 : 2;
      assert.equal(totals.body.totals.tokensInCacheRead, withCache * read);
      assert.equal(totals.body.totals.tokensInCacheWrite, withCache * (write5m + write1h));
    });
  });
}

describe('the cost of an Anthropic answer with cache reads and writes', () => {
  let mock: Awaited<ReturnType<typeof startMockAnthropic>>;
  before(async () => {
    mock = await startMockAnthropic({ eventDelayMs: 0 });
  });
  after(() => mock.close());

  /** A Claude Code turn: a ~25k-token prefix mostly read back, part of it written for 5 minutes and 1 hour. */
  const cache = { read: 24_000, write5m: 1_200, write1h: 300 };
  const text = 'Done.';
  /** What the mock answers for a scripted reply. */
  const model = 'claude-sonnet-4-5-20250929';
  const outputTokens = roughTokens(text);

  /** The package reads Anthropic's usage object itself and prices it with its own data. */
  function packagePrice(): { cached: number; folded: number } {
    const anthropic = findProvider({ providerId: 'anthropic' });
    assert.ok(anthropic !== undefined);
    const extracted = extractUsage(anthropic, {
      model,
      usage: {
        input_tokens: SCRIPTED_PROMPT_TOKENS,
        cache_read_input_tokens: cache.read,
        cache_creation_input_tokens: cache.write5m + cache.write1h,
        cache_creation: {
          ephemeral_5m_input_tokens: cache.write5m,
          ephemeral_1h_input_tokens: cache.write1h,
        },
        output_tokens: outputTokens,
      },
    });
    const priced = calcPrice(extracted.usage, model, { providerId: 'anthropic' });
    // What folding the cache into plain input, as the gateway did before, would have cost.
    const inputTokens = SCRIPTED_PROMPT_TOKENS + cache.read + cache.write5m + cache.write1h;
    const folded = calcPrice({ input_tokens: inputTokens, output_tokens: outputTokens }, model, {
      providerId: 'anthropic',
    });
    assert.ok(priced !== null && folded !== null);
    return { cached: roundCost(priced.total_price), folded: roundCost(folded.total_price) };
  }

  it("equals the price data's own figure for those counts, and the daily budget is spent by it", async (t) => {
    const { cached, folded } = packagePrice();
    assert.ok(cached > 0 && folded > 4 * cached, `cached $${cached}, folded $${folded}`);
    // Room for one answer and the second's reservation (a few input tokens, 16 output), not a third:
    // at the folded cost, the second would already be refused.
    const budget = cached + 0.001;
    assert.ok(folded > budget);
    const gw = await startGateway(t, {
      env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'k' },
      file: { limits: { apps: { [APP]: { dailyBudgetUsd: budget } } } },
    });
    const statuses: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      mock.replyNext({ text, usage: scriptedCacheUsage('anthropic', cache) });
      const answer = await gw.chat({ messages, provider: 'provider-a', maxTokens: 16 });
      statuses.push(answer.status);
      if (answer.status === 200) {
        ids.push(answer.body.id);
        assert.equal(answer.body.usage.estimatedCost, cached);
      }
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    for (const id of ids) {
      const row = await ledgerRow(gw, id);
      assert.deepEqual([row.model, row.tokensOut, row.priceSource], [model, outputTokens, 'genai-prices']);
      assert.equal(row.costUsd, cached);
    }
  });
});
