import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measureLoopStall } from '../helpers/event-loop-probe.ts';
import { AUTH, startGateway } from '../helpers/gateway-harness.ts';
import { randomText } from '../helpers/random-text.ts';

/** The hardening issue's target: GET /health answers within 50 ms while other requests run. */
const MAX_STALL_MS = 50;
const MIB = 1024 * 1024;

const chat = (content: string): string => JSON.stringify({ messages: [{ role: 'user', content }] });

// This file is a process of its own (node --test), so the first request here is the first use of
// the tokenizer in the process: loading its table (~110 ms of CPU) must not happen on the event loop.
describe("the tokenizer's first use", () => {
  it(`holds the event loop less than ${MAX_STALL_MS} ms: the first count, then a 1 MiB random prompt`, async (t) => {
    const gw = await startGateway(t);
    // Built before the clock starts: the test's own work is not the server's.
    const payloads = [chat('Hello there'), chat(randomText(MIB, 7))];
    const {
      value: statuses,
      maxStallMs,
      maxStallCpuMs,
    } = await measureLoopStall(async () => {
      const statuses: number[] = [];
      for (const payload of payloads) {
        const res = await gw.gateway.inject({
          method: 'POST',
          url: '/v1/chat',
          headers: { ...AUTH, 'content-type': 'application/json' },
          payload,
        });
        statuses.push(res.statusCode);
      }
      return statuses;
    });
    assert.deepEqual(statuses, [200, 200]);
    t.diagnostic(`longest stall: ${maxStallCpuMs.toFixed(1)} ms of CPU, ${maxStallMs.toFixed(1)} ms wall`);
    // CPU time of the main thread, not wall time: see test/helpers/event-loop-probe.ts.
    assert.ok(
      maxStallCpuMs < MAX_STALL_MS,
      `event loop blocked for ${maxStallCpuMs.toFixed(0)} ms of CPU (${maxStallMs.toFixed(0)} ms wall)`,
    );
  });
});
