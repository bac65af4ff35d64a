import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * A worker thread of bench/hostile.ts: sends GET /health every `everyMs` on its own keep-alive
 * connections, each on schedule whether or not the last came back, and times each from when it
 * was due. In a thread of its own, so the load generator's work in the main thread does not
 * delay the probes. Posts the latencies (ms) when told 'stop'.
 */
const { port, everyMs } = workerData as { port: number; everyMs: number };
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const latencies: number[] = [];
const pending = new Set<Promise<void>>();
const started = performance.now();
let sent = 0;

const inFlight = new Set<number>();

function probe(due: number): Promise<void> {
  inFlight.add(due);
  return new Promise((resolve) => {
    const finish = (latency: number) => {
      if (!inFlight.delete(due)) return;
      latencies.push(latency);
      resolve();
    };
    const req = request({ host: '127.0.0.1', port, path: '/health', agent }, (res) => {
      res.resume();
      res.on('end', () => finish(performance.now() - due));
    });
    req.on('error', () => finish(Number.POSITIVE_INFINITY));
    req.end();
  });
}

// setTimeout aimed at each due time, not setInterval: an interval re-arms from when its callback
// ran, so its lateness adds up and would read as the server's.
let timer: NodeJS.Timeout;
function scheduleNext(): void {
  const due = started + ++sent * everyMs;
  timer = setTimeout(
    () => {
      const done = probe(due);
      pending.add(done);
      void done.finally(() => pending.delete(done));
      scheduleNext();
    },
    Math.max(0, due - performance.now()),
  );
}
scheduleNext();

/** How long stop waits for probes still in flight (a server stuck on a request answers none). */
const DRAIN_MS = 2000;

parentPort?.on('message', async () => {
  clearTimeout(timer);
  await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
  // Probes still unanswered waited at least this long: record that, as a lower bound.
  for (const due of inFlight) latencies.push(performance.now() - due);
  agent.destroy();
  parentPort?.postMessage(latencies);
});
