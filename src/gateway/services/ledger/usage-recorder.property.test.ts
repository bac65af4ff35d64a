import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { sampleRecord } from '../../../../test/contracts/storage-contract.ts';
import { ControlledLedger, readSpilled, settle } from '../../../../test/helpers/controlled-ledger.ts';
import { createLogger } from '../../../platform/logger.ts';
import { UsageRecorder } from './usage-recorder.ts';

type Step =
  | { kind: 'record'; count: number }
  | { kind: 'flush' }
  | { kind: 'tick'; ms: number }
  | { kind: 'succeed' }
  | { kind: 'fail' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('record' as const), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('flush' as const) }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 6_000 }) }),
  fc.record({ kind: fc.constant('succeed' as const) }),
  fc.record({ kind: fc.constant('fail' as const) }),
);

const silent = createLogger({ level: 'silent' });

/**
 * Random interleavings of records, flushes (a `GET /v1/usage` read), timers firing, ledger writes
 * committing or failing, and at the end a shutdown whose writes commit or fail at random. Every
 * record must reach the ledger or the spill file exactly once, in the order recorded, with never
 * two writes in flight.
 */
describe('UsageRecorder over random interleavings (property)', () => {
  before(() => mock.timers.enable({ apis: ['setTimeout'] }));
  after(() => mock.timers.reset());

  it('writes or spills every record exactly once, in order, one write at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 60 }),
        fc.array(fc.boolean(), { maxLength: 8 }),
        fc.integer({ min: 0, max: 3 }),
        async (steps, finalOutcomes, lateRecords) => {
          const ledger = new ControlledLedger();
          const spillDir = mkdtempSync(join(tmpdir(), 'recorder-property-'));
          const recorder = new UsageRecorder(ledger, silent, {
            batchSize: 4,
            flushIntervalMs: 200,
            spillDir,
          });
          const recorded: string[] = [];
          const record = (count: number) => {
            for (let i = 0; i < count; i++) {
              const id = `p${recorded.length}`;
              recorded.push(id);
              recorder.record(sampleRecord(id));
            }
          };
          let failures = 0;
          let closing = false;
          let early = false;
          const flushes: { upTo: number; failuresAtCall: number; done: boolean }[] = [];

          for (const s of steps) {
            if (s.kind === 'record') record(s.count);
            else if (s.kind === 'tick') mock.timers.tick(s.ms);
            else if (s.kind === 'flush') {
              const flush = { upTo: recorded.length, failuresAtCall: failures, done: false };
              flushes.push(flush);
              void recorder.flush().then(() => {
                flush.done = true;
                // A flush returns once its records are in, after a write failed since its call,
                // or at shutdown (its records then are in the ledger or the spill file).
                early ||=
                  ledger.committed.length < flush.upTo && failures === flush.failuresAtCall && !closing;
              });
            } else if (ledger.writes.length > 0) {
              if (s.kind === 'succeed') ledger.succeed();
              else {
                failures++;
                ledger.fail();
              }
            }
            await settle();
            assert.ok(ledger.writes.length <= 1, 'one write in flight at most');
            assert.equal(early, false, 'a flush returned before its records were written');
            assert.deepEqual(ledger.committed, recorded.slice(0, ledger.committed.length), 'in order, once');
            assert.equal(recorder.pending, recorded.length - ledger.committed.length);
          }

          closing = true;
          const final = recorder.flush({ final: true });
          let finalDone = false;
          void final.then(() => {
            finalDone = true;
          });
          record(lateRecords); // requests that finish while shutting down
          for (let turn = 0; !finalDone; turn++) {
            assert.ok(turn < 100, 'shutdown finishes');
            await settle();
            assert.ok(ledger.writes.length <= 1, 'one write in flight at most, at shutdown too');
            if (ledger.writes.length === 0) continue;
            if (finalOutcomes.shift() ?? true) ledger.succeed();
            else ledger.fail();
          }
          record(1); // after shutdown: straight to the spill file
          const calls = ledger.calls;
          mock.timers.tick(60_000);
          await settle();
          assert.equal(ledger.calls, calls, 'nothing is written after shutdown');
          assert.ok(
            flushes.every((f) => f.done),
            'every flush has returned',
          );
          assert.deepEqual([...ledger.committed, ...readSpilled(spillDir)], recorded);
          rmSync(spillDir, { recursive: true });
        },
      ),
      { numRuns: 300 },
    );
  });
});
