import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHealthReport, type HealthSources, judgeOutbox, pickWorstStatus } from './health-report.ts';

const thresholds = { pendingWarn: 100, oldestPendingWarnMs: 900_000 };
const time = '2030-01-01T00:00:00.000Z';

function sources(overrides: Partial<HealthSources> = {}): HealthSources {
  return {
    ping: async () => {},
    outboxStats: undefined,
    mailTransport: 'smtp',
    doubleOptIn: true,
    clock: { now: () => Date.parse(time), monotonic: () => performance.now() },
    version: '1.2.3',
    pingTimeoutMs: 50,
    outbox: thresholds,
    ...overrides,
  };
}

describe('health report', () => {
  it('takes the worst status', () => {
    assert.equal(pickWorstStatus([]), 'pass');
    assert.equal(pickWorstStatus(['pass', 'warn', 'pass']), 'warn');
    assert.equal(pickWorstStatus(['warn', 'fail', 'pass']), 'fail');
  });

  it('warns on a large or old outbox backlog, not on failed entries', () => {
    const status = (stats: Parameters<typeof judgeOutbox>[0]) =>
      Object.values(judgeOutbox(stats, 1_000_000, thresholds, time)).map((checks) => checks[0]?.status);
    assert.deepEqual(status({ pending: 0, failed: 0, oldestPendingAt: null }), ['pass', 'pass', 'pass']);
    assert.deepEqual(status({ pending: 99, failed: 5, oldestPendingAt: 100_001 }), ['pass', 'pass', 'pass']);
    assert.deepEqual(status({ pending: 100, failed: 0, oldestPendingAt: 999_000 }), ['warn', 'pass', 'pass']);
    assert.deepEqual(status({ pending: 1, failed: 0, oldestPendingAt: 100_000 }), ['pass', 'warn', 'pass']);
  });

  it('fails the storage check when the ping hangs past its timeout', async () => {
    const report = await buildHealthReport(sources({ ping: () => new Promise(() => {}) }));
    assert.equal(report.status, 'fail');
    assert.equal(report.checks['storage:responseTime']?.[0]?.output, 'timed out');
  });

  it('warns when the outbox cannot be read', async () => {
    const report = await buildHealthReport(
      sources({
        outboxStats: async () => {
          throw new Error('boom');
        },
      }),
    );
    assert.equal(report.status, 'warn');
    assert.equal(report.timestamp, time);
    assert.equal(report.version, '1.2.3');
  });
});
