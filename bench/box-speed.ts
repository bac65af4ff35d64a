/**
 * How fast this box runs code: a fixed integer loop (each step a multiply and an add on the
 * previous step's result, so it runs at the core's speed and no faster), timed in the bench
 * process while no server is under load. Boxes of the same size have differed fourfold from one
 * session to the next here, and the gateway's ratios to the forwarder moved with them (system
 * calls and JavaScript do not slow down alike): two reports compare only when their box speeds
 * are near, and a run whose speed at the end is far from its speed at the start was measured on a
 * box that changed under it.
 *
 * Not a JSON round trip, which was tried: its garbage and the JIT's choices made it vary by a
 * factor of two from one process to the next on the same box, where this loop varies by 5%.
 */
const STEPS_PER_BATCH = 20_000_000;
const WARM_UP_BATCHES = 2;
const BATCHES = 5;

function steps(count: number): number {
  let x = 0;
  for (let i = 0; i < count; i++) x = (x * 31 + i) | 0;
  return x;
}

/** Nanoseconds per step: the fastest of five batches after two to warm up. */
export function measureBoxSpeed(): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let batch = 0; batch < WARM_UP_BATCHES + BATCHES; batch++) {
    const started = process.hrtime.bigint();
    sink ^= steps(STEPS_PER_BATCH);
    const ns = Number(process.hrtime.bigint() - started) / STEPS_PER_BATCH;
    if (batch >= WARM_UP_BATCHES) best = Math.min(best, ns);
  }
  // Used, so the loop cannot be optimised away.
  if (Number.isNaN(sink)) throw new Error('box speed: the loop did not run');
  return best;
}
