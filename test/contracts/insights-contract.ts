import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Storage, UsageRecord } from '../../src/storage/ports.ts';
import { sampleRecord } from './storage-contract.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 2026-03-02T00:00:00Z: a whole day, so hour and day buckets are easy to read.
const T0 = Date.UTC(2026, 2, 2);

/** An MCP gateway call: no slot, no model, no tokens (CONTRACT 5.7). */
const MCP_CALL: Partial<UsageRecord> = {
  app: 'agent',
  operation: 'mcp_tool',
  provider: null,
  model: null,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  frontDoor: 'mcp',
  mcpServer: 'docs',
  latencyMs: 5000,
  attempts: [],
};

/** What every LedgerInsights answers, on the rollups the ledger's trigger keeps; run per engine. */
export function describeInsightsContract(name: string, open: () => Promise<Storage>): void {
  describe(`ledger insights contract: ${name}`, () => {
    let storage: Storage;
    before(async () => {
      storage = await open();
      await storage.usage.appendBatch([
        sampleRecord('a1', {
          app: 'web',
          createdAt: T0 + 10,
          costUsd: 0.5,
          tokensIn: 1,
          tokensOut: 2,
          latencyMs: 10,
          cacheReadTokens: 7,
          cacheWrite5mTokens: 3,
          cacheWrite1hTokens: 2,
        }),
        sampleRecord('a2', {
          app: 'web',
          frontDoor: 'openai',
          createdAt: T0 + HOUR + 5,
          costUsd: 0.25,
          latencyMs: 100,
          cacheHit: true,
          costSavedUsd: 0.125,
          deployment: 'eu-west',
        }),
        sampleRecord('a3', {
          app: 'batch',
          model: 'other-model',
          createdAt: T0 + HOUR + 6,
          costUsd: 1,
          status: 502,
          errorCode: 'upstream_error',
          latencyMs: 1000,
        }),
        sampleRecord('a4', {
          app: 'batch',
          provider: null,
          model: null,
          createdAt: T0 + DAY + 1,
          costUsd: 0,
          tokensIn: 0,
          tokensOut: 0,
          status: 400,
          errorCode: 'invalid_request',
          latencyMs: 1,
        }),
      ]);
      // Two days later, away from the ranges of the tests above: MCP tool calls (CONTRACT 5.7).
      await storage.usage.appendBatch([
        sampleRecord('m1', { ...MCP_CALL, mcpTool: 'search', createdAt: T0 + 3 * DAY + 1 }),
        sampleRecord('m2', { ...MCP_CALL, mcpTool: 'search', createdAt: T0 + 3 * DAY + 2, status: 504 }),
        sampleRecord('m3', { ...MCP_CALL, mcpTool: 'fetch', createdAt: T0 + 3 * DAY + 3 }),
      ]);
      // A record already stored is skipped whole, and counted once in the rollups too.
      await storage.usage.appendBatch([sampleRecord('a1', { app: 'web', createdAt: T0 + 10, costUsd: 0.5 })]);
    });
    after(() => storage.close());

    it('sums every app by day, app and model, with absent provider and model as null', async () => {
      const rows = await storage.insights.totals({
        from: T0,
        to: T0 + 2 * DAY,
        groupBy: ['day', 'app', 'model'],
        filters: {},
      });
      assert.deepEqual(
        rows.map((r) => [r.day, r.app, r.model, r.requests, r.errors, r.costUsd]),
        [
          [T0, 'batch', 'other-model', 1, 1, 1],
          [T0, 'web', 'gpt-4o-mini', 2, 0, 0.75],
          [T0 + DAY, 'batch', null, 1, 1, 0],
        ],
      );
    });

    it('groups and filters by front door', async () => {
      const range = { from: T0, to: T0 + 2 * DAY };
      const rows = await storage.insights.totals({ ...range, groupBy: ['frontDoor'], filters: {} });
      assert.deepEqual(
        rows.map((r) => [r.frontDoor, r.requests]),
        [
          ['native', 3],
          ['openai', 1],
        ],
      );
      const openai = await storage.insights.totals({
        ...range,
        groupBy: ['app'],
        filters: { frontDoor: 'openai' },
      });
      assert.deepEqual(
        openai.map((r) => [r.app, r.costUsd]),
        [['web', 0.25]],
      );
    });

    it('groups by hour, filters, and answers one zero row for an empty range without groups', async () => {
      const byHour = await storage.insights.totals({
        from: T0,
        to: T0 + DAY,
        groupBy: ['hour'],
        filters: { provider: 'provider-a' },
      });
      assert.deepEqual(
        byHour.map((r) => [r.hour, r.requests, r.tokensIn, r.tokensOut]),
        [
          [T0, 1, 1, 2],
          [T0 + HOUR, 2, 20, 40],
        ],
      );
      const webOnly = await storage.insights.totals({
        from: T0,
        to: T0 + 2 * DAY,
        groupBy: [],
        filters: { app: 'web' },
      });
      assert.deepEqual(
        webOnly.map((r) => [r.requests, r.costUsd]),
        [[2, 0.75]],
      );
      const empty = await storage.insights.totals({ from: T0 - DAY, to: T0, groupBy: [], filters: {} });
      assert.deepEqual(empty, [
        {
          requests: 0,
          errors: 0,
          tokensIn: 0,
          tokensOut: 0,
          costUsd: 0,
          tokensInCacheRead: 0,
          tokensInCacheWrite: 0,
          cacheHits: 0,
          costSavedUsd: 0,
        },
      ]);
    });

    it('joins the hours at a range’s edges to the whole days inside it', async () => {
      // From 01:00 on the first day to 01:00 on the third: hours of day one, all of day two.
      const range = { from: T0 + HOUR, to: T0 + 2 * DAY + HOUR };
      const rows = await storage.insights.totals({ ...range, groupBy: ['day'], filters: {} });
      assert.deepEqual(
        rows.map((r) => [r.day, r.requests, r.costUsd]),
        [
          [T0, 2, 1.25],
          [T0 + DAY, 1, 0],
        ],
      );
      const late = await storage.insights.totals({
        from: T0 + DAY + HOUR,
        to: T0 + 2 * DAY,
        groupBy: [],
        filters: {},
      });
      assert.equal(late[0]?.requests, 0, 'a4 at 00:00 of day two is before this range');
      const latency = await storage.insights.latency({ ...range, bucket: undefined, filters: {} });
      assert.equal(
        latency.reduce((sum, r) => sum + r.requests, 0),
        3,
      );
    });

    it('keeps a latency histogram: ln(1 + ms) * 8 bins, per bucket or for the whole range', async () => {
      const whole = await storage.insights.latency({
        from: T0,
        to: T0 + 2 * DAY,
        bucket: undefined,
        filters: {},
      });
      const bin = (ms: number) => Math.floor(Math.log(1 + ms) * 8);
      assert.deepEqual(whole, [
        { bin: bin(1), requests: 1 },
        { bin: bin(10), requests: 1 },
        { bin: bin(100), requests: 1 },
        { bin: bin(1000), requests: 1 },
      ]);
      const perDay = await storage.insights.latency({
        from: T0,
        to: T0 + 2 * DAY,
        bucket: 'day',
        filters: { provider: 'provider-a' },
      });
      assert.deepEqual(perDay, [
        { start: T0, bin: bin(10), requests: 1 },
        { start: T0, bin: bin(100), requests: 1 },
        { start: T0, bin: bin(1000), requests: 1 },
      ]);
    });

    it('adds refusal counts from several instances into one hour, and groups them', async () => {
      await storage.insights.addRefusals([
        { hour: T0, app: 'web', limit: 'requests per minute', refusals: 2 },
        { hour: T0, app: 'batch', limit: 'daily budget', refusals: 1 },
      ]);
      await storage.insights.addRefusals([
        { hour: T0, app: 'web', limit: 'requests per minute', refusals: 3 },
      ]);
      assert.deepEqual(
        await storage.insights.refusals({ from: T0, to: T0 + DAY, groupBy: ['app', 'limit'] }),
        [
          { app: 'batch', limit: 'daily budget', refusals: 1 },
          { app: 'web', limit: 'requests per minute', refusals: 5 },
        ],
      );
      assert.deepEqual(
        await storage.insights.refusals({ from: T0, to: T0 + DAY, groupBy: ['day'], app: 'web' }),
        [{ day: T0, refusals: 5 }],
      );
    });

    it('lists failed requests newest first, within the range and the limit', async () => {
      const failures = await storage.insights.failures({ from: T0, to: T0 + 2 * DAY, limit: 10 });
      assert.deepEqual(
        failures.map((f) => [f.id, f.status, f.errorCode, f.provider]),
        [
          ['a4', 400, 'invalid_request', null],
          ['a3', 502, 'upstream_error', 'provider-a'],
        ],
      );
      assert.equal((await storage.insights.failures({ from: T0, to: T0 + 2 * DAY, limit: 1 })).length, 1);
      assert.deepEqual(
        await storage.insights.failures({ from: T0, to: T0 + 2 * DAY, app: 'web', limit: 10 }),
        [],
      );
    });

    it('sums prompt-cache tokens, response-cache hits and savings, and groups by deployment', async () => {
      const range = { from: T0, to: T0 + 2 * DAY };
      const [all] = await storage.insights.totals({ ...range, groupBy: [], filters: {} });
      assert.deepEqual(
        [all?.tokensInCacheRead, all?.tokensInCacheWrite, all?.cacheHits, all?.costSavedUsd],
        [7, 5, 1, 0.125],
      );
      const byDeployment = await storage.insights.totals({ ...range, groupBy: ['deployment'], filters: {} });
      assert.deepEqual(
        byDeployment.map((r) => [r.deployment, r.requests]),
        [
          [null, 3],
          ['eu-west', 1],
        ],
      );
      const euOnly = await storage.insights.totals({
        ...range,
        groupBy: [],
        filters: { deployment: 'eu-west' },
      });
      assert.deepEqual(
        euOnly.map((r) => [r.requests, r.cacheHits]),
        [[1, 1]],
      );
    });

    it('groups MCP tool calls by server__tool, and keeps them out of the latency histogram', async () => {
      const range = { from: T0 + 3 * DAY, to: T0 + 4 * DAY };
      const rows = await storage.insights.totals({ ...range, groupBy: ['tool'], filters: {} });
      assert.deepEqual(
        rows.map((r) => [r.tool, r.requests, r.errors]),
        [
          ['docs__fetch', 1, 0],
          ['docs__search', 2, 1],
        ],
      );
      assert.deepEqual(await storage.insights.latency({ ...range, bucket: undefined, filters: {} }), []);
    });

    it('retention drops the rollup hours wholly before the cutoff', async () => {
      await storage.usage.deleteBefore(T0 + DAY);
      const rows = await storage.insights.totals({
        from: T0,
        to: T0 + 2 * DAY,
        groupBy: ['day'],
        filters: {},
      });
      assert.deepEqual(
        rows.map((r) => [r.day, r.requests]),
        [[T0 + DAY, 1]],
      );
      assert.deepEqual(await storage.insights.refusals({ from: T0, to: T0 + DAY, groupBy: [] }), [
        { refusals: 0 },
      ]);
    });
  });
}
