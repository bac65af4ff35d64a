import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { BatchSettings } from '../../config/batch-settings.ts';
import { systemClock } from '../../platform/clock.ts';
import { createLogger } from '../../platform/logger.ts';
import { openSqliteStorage } from '../../storage/embedded/sqlite-storage.ts';
import type { Storage, UsageRecord } from '../../storage/ports.ts';
import { PriceBook } from '../pricing/price-book.ts';
import { type VendorBatchApi, type VendorPoll, VendorRefusal, type VendorRequest } from './vendor-api.ts';
import { VendorBatches } from './vendor-batches.ts';
import type { VendorRoute } from './vendor-plan.ts';

/**
 * The poller against a scripted vendor (the HTTP side is batches-vendor.test.ts's): a refusal of
 * the whole submission, a vendor that fails the batch, results mapped once, and the backoff.
 */

const settings: BatchSettings = {
  maxFileBytes: 1_000_000,
  maxRequestsPerFile: 100,
  maxMessageBatchBytes: 1_000_000,
  retentionDays: 30,
  concurrency: 1,
  busyConcurrency: 1,
  yieldAboveUtilization: 0.5,
  leaseSeconds: 60,
  pollIntervalMs: 10,
  vendorBatches: true,
  vendorPollMs: 20,
  vendorPollMaxMs: 40,
};

const ROUTE: VendorRoute = {
  slotFor: () => 'provider-a',
  upstreamModel: (_e, model) => model.replace(/^provider-a\//, ''),
};

interface Script {
  submitted: VendorRequest[][];
  polls: number;
  submit?: () => Promise<string>;
  poll?: () => VendorPoll;
}

function vendor(script: Script): VendorBatchApi {
  return {
    submit: async (_tag, _endpoint, requests) => {
      script.submitted.push([...requests]);
      return script.submit === undefined ? 'vb_1' : script.submit();
    },
    find: async () => undefined,
    poll: async () => {
      script.polls++;
      return script.poll?.() ?? { ended: true, outcome: 'completed' };
    },
    results: async (_id, each) => {
      for (const customId of ['c1', 'c1', 'c2'])
        await each({
          customId,
          state: 'succeeded',
          statusCode: 200,
          requestId: `r-${customId}`,
          body: `{"answer":"${customId}"}`,
          usage: { inputTokens: 1_000_000, outputTokens: 0 },
          model: 'gpt-4o-mini',
        });
    },
    cancel: async () => {},
  };
}

describe('VendorBatches (vendor-batches.ts)', () => {
  let storage: Storage;
  let rows: UsageRecord[];
  const prices = new PriceBook({});
  beforeEach(async () => {
    storage = await openSqliteStorage(':memory:');
    rows = [];
    await prices.load();
  });
  afterEach(() => storage.close());

  async function batchOf(id: string, total: number): Promise<void> {
    const now = Date.now();
    await storage.batches.createBatch({
      id,
      app: 'web',
      flavor: 'openai',
      endpoint: '/v1/chat/completions',
      inputFileId: null,
      completionWindow: '24h',
      metadata: null,
      total,
      createdAt: now,
      expiresAt: now + 86_400_000,
    });
    const items = Array.from({ length: total }, (_, i) => ({
      line: i + 1,
      customId: `c${i + 1}`,
      ledgerId: `${id}-row-${i + 1}`,
      body: JSON.stringify({ model: 'provider-a/gpt-4o-mini', messages: [] }),
    }));
    await storage.batches.addItems(id, items);
    await storage.batches.upstream.route(id, 'provider-a');
    await storage.batches.startBatch(id, now);
  }

  async function run(script: Script, until: () => Promise<boolean>): Promise<void> {
    const poller = new VendorBatches({
      store: storage.batches.upstream,
      settings,
      clock: systemClock,
      priceBook: prices,
      limiter: { admit: async () => ({ headers: {}, settle: async () => {} }) },
      record: (row) => rows.push(row),
      flushLedger: async () => {
        await storage.usage.appendBatch(rows.splice(0));
      },
      teamOf: () => undefined,
      route: ROUTE,
      apiFor: () => ({ kind: 'openai', api: vendor(script) }),
      logger: createLogger({ level: 'silent' }),
    });
    poller.start();
    try {
      for (let i = 0; i < 200 && !(await until()); i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      await poller.stop();
    }
  }

  const counts = async (id: string) => (await storage.batches.getBatch('web', id))?.counts;

  it('submits once with the upstream model, maps each result once, one row each at half the live price', async () => {
    await batchOf('b1', 2);
    const script: Script = { submitted: [], polls: 0 };
    await run(script, async () => (await counts('b1'))?.succeeded === 2);
    assert.equal(script.submitted.length, 1);
    assert.deepEqual(
      script.submitted[0]?.map((r) => [r.customId, r.body.model]),
      [
        ['c1', 'gpt-4o-mini'],
        ['c2', 'gpt-4o-mini'],
      ],
    );
    const ledger = (await storage.usage.readRecords({ limit: 100 })).filter((r) => r.batchId === 'b1');
    assert.equal(ledger.length, 2, 'the repeated c1 line adds no row');
    const live = prices.resolve('openai', 'gpt-4o-mini').price.inputPerMTok;
    assert.ok(
      ledger.every((r) => Math.abs(r.costUsd - live / 2) < 1e-9),
      'a million input tokens at half the live rate',
    );
    const results = await storage.batches.readResults('b1', 0, 10);
    assert.deepEqual(
      results.map((r) => r.response),
      ['{"answer":"c1"}', '{"answer":"c2"}'],
    );
  });

  it('a vendor refusing the submission hands the batch to the gateway: its requests become the runner’s', async () => {
    await batchOf('b2', 2);
    const script: Script = {
      submitted: [],
      polls: 0,
      submit: async () => {
        throw new VendorRefusal(400, '{"error":{"message":"too many inputs"}}');
      },
    };
    const claimable = async () => (await storage.batches.claimItems('runner', Date.now(), 60_000, 10)).length;
    assert.equal(await claimable(), 0, 'not the runner’s while a vendor has it');
    let claimed = 0;
    await run(script, async () => {
      claimed = await claimable();
      return claimed > 0;
    });
    assert.equal(claimed, 2);
    assert.equal(script.polls, 0);
    assert.equal((await counts('b2'))?.errored, 0);
  });

  it('polls back off while the vendor runs; a failed vendor batch ends its requests errored (502), no rows', async () => {
    await batchOf('b3', 1);
    const script: Script = {
      submitted: [],
      polls: 0,
      poll: () => (script.polls < 4 ? { ended: false } : { ended: true, outcome: 'failed', errors: '[]' }),
    };
    const started = Date.now();
    await run(script, async () => (await counts('b3'))?.errored === 1);
    // 20, 40, 40 ms of backoff at least, between the first poll and the failing one.
    assert.ok(Date.now() - started >= 100, 'the polls were spaced');
    const [first] = await storage.batches.readResults('b3', 0, 1);
    assert.equal(first?.statusCode, 502);
    assert.equal(
      (await storage.usage.readRecords({ limit: 100 })).filter((r) => r.batchId === 'b3').length,
      0,
    );
  });
});
