import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { probeHealth } from '../helpers/event-loop-probe.ts';
import { AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { randomText } from '../helpers/random-text.ts';

const MIB = 1024 * 1024;
/**
 * The longest the event loop may be held (in its own CPU time, event-loop-probe.ts) while a 3 MiB
 * prompt is answered. Read on the event loop, decoding, parsing and the simulator's seed held it
 * 17-30 ms on this machine (the best of six tries 17); read on the JSON thread, 3-7 ms: what is
 * left is the parsed value's copy into the main heap and a collection now and then.
 */
const MAX_HOLD_MS = 12;
/**
 * Tries, the best of which counts. A parse on the event loop is in every try; what else holds it
 * comes and goes: on 2026-12-07 the holds read 8-10 ms or 16-24 ms at random (quiet box, three
 * runs of three), the difference the prompt's copy to the tokenizer's thread, whose postMessage of
 * a fresh 3 MiB string took 0.3 ms or 8-11 ms from one call to the next in a standalone probe
 * (the serializer's buffer landing on memory the process had to fault in again). Three tries all
 * drew the slow copy in one full run in five; five tries make that rare without raising the bound.
 */
const TRIES = 5;

describe('a prompt of megabytes does not hold the event loop (issue 33, head-of-line)', () => {
  const h = shareGateway();
  const payload = Buffer.from(
    JSON.stringify({
      model: 'provider-c/simulated-chat',
      messages: [{ role: 'user', content: randomText(3 * MIB, 3) }],
      max_tokens: 16,
    }),
  );
  const send = () =>
    h.gateway.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload,
    });
  before(async () => {
    // The first starts the JSON thread and the tokenizer's, and compiles what the rest runs.
    assert.equal((await send()).statusCode, 200);
  });

  it(`is read and answered while GET /health waits at most ${MAX_HOLD_MS} ms of the loop's CPU (best of ${TRIES})`, async () => {
    // A GC pause or the scheduler of a busy machine rarely hits every try; a stall does.
    const holds: number[] = [];
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const probe = probeHealth(h.gateway);
      const res = await send();
      const { maxHealthCpuMs, answered } = await probe.stop();
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.ok(answered > 0, 'health was probed');
      holds.push(maxHealthCpuMs);
      if (maxHealthCpuMs <= MAX_HOLD_MS) return;
    }
    assert.fail(`GET /health waited ${holds.map((ms) => ms.toFixed(1)).join(', ')} ms of the loop's CPU`);
  });
});
