import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { drive, workloadSpecs } from './drive-requests.ts';
import { gatewayEnv } from './gateway-env.ts';
import { freePort, ROOT, type Server, startGateway, startHelper } from './processes.ts';
import { SourcePlaces } from './source-place.ts';

/**
 * `node bench/allocations.ts --workload=chat --requests=5000`: the bytes a request allocates on the
 * gateway's main thread, and where (by source file and by function, through the bundle's source
 * maps). Garbage a scavenge frees at once is counted too (bench/preload-allocation-sampling.ts):
 * it is what the young generation's collections cost, on the main thread and V8's helpers. A
 * sampling profile (one sample per KiB allocated on average), so small figures are estimates;
 * the total moves by a few percent from one run to the next.
 */
const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'chat' },
    requests: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '8' },
    top: { type: 'string', default: '30' },
    /** Also the callers (two levels up) of the functions of this name, by the bytes they have them allocate. */
    callers: { type: 'string' },
  },
});

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const dir = join(fileURLToPath(new URL('bench/results/tmp/', ROOT)), `allocations-${process.pid}`);
mkdirSync(dir, { recursive: true });
const running: Server[] = [];
const profileFile = join(dir, 'main.heapprofile');

async function written(path: string): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 100) {
    if (waited > 30_000) throw new Error(`no allocation profile at ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}

try {
  const mock = await startHelper('mock', 'bench/mock-upstream.ts', []);
  running.push(mock);
  const gateway = await startGateway({
    env: { ...gatewayEnv(await freePort(), mock.port, join(dir, 'data')), ALLOCATION_PROFILE: profileFile },
    logFile: join(dir, 'gateway.log'),
    nodeArgs: ['--import', './bench/preload-allocation-sampling.ts'],
  });
  running.push(gateway);
  const specs = workloadSpecs(values.workload);
  const concurrency = Number(values.concurrency);
  const requests = Number(values.requests);
  await drive(gateway.port, specs, Number(values.warmup), concurrency);
  process.kill(gateway.pid, 'SIGUSR2');
  await drive(gateway.port, specs, requests, concurrency);
  process.kill(gateway.pid, 'SIGUSR2');
  await written(profileFile);

  const sources = new SourcePlaces();
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let all = 0;
  const placeOf = (frame: HeapNode['callFrame']) => {
    const origin = sources.find(frame.url, frame.lineNumber, frame.columnNumber);
    const file = origin?.file ?? (frame.url === '' ? `(${frame.functionName || 'native'})` : frame.url);
    return {
      file,
      name: `${frame.functionName || '(anonymous)'} ${file}:${origin?.line ?? frame.lineNumber + 1}`,
    };
  };
  // A built-in (Array.prototype.push, JSON.parse…) is named with the nearest caller that has a
  // place: `push ← toUsageRecord src/…`, since a built-in's bytes are its caller's doing.
  const byCaller = new Map<string, number>();
  const visit = (node: HeapNode, caller: string, callers: readonly string[] = []) => {
    const builtin = node.callFrame.url === '';
    const here = builtin ? undefined : placeOf(node.callFrame);
    if (node.selfSize > 0) {
      const { file, name } = here ?? placeOf(node.callFrame);
      const named = builtin ? `${node.callFrame.functionName || '(native)'} ← ${caller}` : name;
      if (node.callFrame.functionName === values.callers) {
        const chain = `${callers.slice(-2).join(' → ')} → ${named}`;
        byCaller.set(chain, (byCaller.get(chain) ?? 0) + node.selfSize);
      }
      byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
      byFunction.set(named, (byFunction.get(named) ?? 0) + node.selfSize);
      all += node.selfSize;
    }
    const path = here === undefined ? callers : [...callers, here.name];
    for (const child of node.children) visit(child, here?.name ?? caller, path);
  };
  visit((JSON.parse(readFileSync(profileFile, 'utf8')) as { head: HeapNode }).head, '(root)');
  const print = (title: string, table: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, bytes] of [...table].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
      process.stdout.write(`${(bytes / requests).toFixed(0).padStart(8)} B/req  ${name}\n`);
  };
  process.stdout.write(
    `${values.workload}, ${requests} requests after ${values.warmup}, ${concurrency} at a time: ${(all / requests / 1024).toFixed(1)} KiB allocated per request on the main thread\n`,
  );
  print('by file or package', byFile);
  print('by function', byFunction);
  if (values.callers !== undefined) print(`${values.callers}, by its callers`, byCaller);
} finally {
  await Promise.all(running.map((server) => server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
