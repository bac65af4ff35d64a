import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageLedger } from '../../src/storage/ports.ts';
import { sampleRecord } from '../contracts/storage-contract.ts';
import { startGateway } from '../helpers/gateway-harness.ts';

const HIGH_WATER_MARK = 20_000;
const WAIT_MS = 10_000;

/** Makes the ledger's writes fail until the returned function is called. */
function takeDown(ledger: UsageLedger): () => void {
  const appendBatch = ledger.appendBatch;
  ledger.appendBatch = async () => {
    throw new Error('database down');
  };
  return () => {
    ledger.appendBatch = appendBatch;
  };
}

/**
 * The database is down and the backlog reaches the high-water mark (the defaults: 20,000 records,
 * 10 s): a new request waits, bounded, and is refused with a 503 the client can retry, rather
 * than waiting for as long as the outage lasts or a record being dropped. Once the database is
 * back, waiting requests go on and every record reaches the ledger.
 */
describe('the usage ledger at its high-water mark', () => {
  it('makes a request wait at most 10 s, then refuses it with 503; nothing recorded is lost', async (t) => {
    const gw = await startGateway(t);
    const bringBack = takeDown(gw.app.storage.usage);
    for (let i = 0; i < HIGH_WATER_MARK; i++) gw.app.recorder.record(sampleRecord(`backlog-${i}`));
    const chat = () => gw.chat({ messages: [{ role: 'user', content: 'hello' }] });

    const started = performance.now();
    const refused = await chat();
    const waited = performance.now() - started;
    console.log(`# high-water mark: refused after ${waited.toFixed(0)} ms with ${refused.status}`);
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, 'service_unavailable');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.ok(waited >= WAIT_MS - 50 && waited < WAIT_MS + 2_000, `waited ${waited.toFixed(0)} ms`);

    const waiting = chat();
    await new Promise((resolve) => setTimeout(resolve, 200));
    bringBack();
    const resumedAt = performance.now();
    const answered = await waiting;
    console.log(
      `# high-water mark: a waiting request answered ${(performance.now() - resumedAt).toFixed(0)} ms after the database came back`,
    );
    assert.equal(answered.status, 200);
    await gw.app.recorder.flush();
    assert.equal(gw.app.recorder.pending, 0);
    const rows = await gw.app.storage.usage.readRecords({ limit: HIGH_WATER_MARK + 10 });
    assert.equal(
      rows.filter((r) => r.id.startsWith('backlog-')).length,
      HIGH_WATER_MARK,
      'the backlog, once each',
    );
    assert.ok(
      rows.some((r) => r.id === answered.body.id),
      'the answered request',
    );
    assert.equal(rows.length, HIGH_WATER_MARK + 1, 'and the refused request left no row');
  });
});
