import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

/**
 * Bench-only preload (`node --import ./bench/preload-allocation-sampling.ts dist/main.js`, set
 * `ALLOCATION_PROFILE=<file>`): V8's sampling heap profiler on the main thread, counting every
 * allocation, also those a scavenge frees at once (Node's own `--heap-prof` keeps only what is
 * still alive, which hides the short-lived garbage a request leaves). SIGUSR2 starts sampling (after
 * the warm-up), the next SIGUSR2 writes the profile (Chrome DevTools' .heapprofile) and stops.
 */
const file = process.env['ALLOCATION_PROFILE'];
if (isMainThread && file !== undefined) {
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return;
    }
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error !== null) throw error;
      writeFileSync(file, JSON.stringify(result.profile));
      sampling = false;
    });
  });
}
