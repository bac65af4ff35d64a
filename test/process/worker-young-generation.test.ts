import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startScript } from '../helpers/start-script.ts';
import { WORKER_YOUNG_LIMIT_MB } from '../helpers/young-generation-probe.ts';

const PROBE = fileURLToPath(new URL('../helpers/young-generation-probe.ts', import.meta.url));

async function youngGenerations(clear: boolean): Promise<{ main: number; worker: number }> {
  const { nodeArgs } = startScript();
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...nodeArgs,
    PROBE,
    ...(clear ? ['clear'] : []),
  ]);
  return JSON.parse(stdout) as { main: number; worker: number };
}

function semiSpaceMb(nodeArgs: readonly string[]): number {
  const flag = nodeArgs.find((arg) => arg.startsWith('--max-semi-space-size='));
  assert.ok(flag !== undefined, 'npm start sets the main thread’s semi-space size');
  return Number(flag.split('=')[1]);
}

describe('young generations under npm start’s flags (src/platform/worker-young-generation.ts)', () => {
  it('without the start-up step, a worker’s own limit is overridden by the flag (why the step exists)', async () => {
    const sizes = await youngGenerations(false);
    assert.ok(sizes.worker > 4 * WORKER_YOUNG_LIMIT_MB, `worker young generation ${sizes.worker} MiB`);
  });

  it('with it, the main thread keeps the flag’s young generation and a worker keeps to its limit', async () => {
    const semiSpace = semiSpaceMb(startScript().nodeArgs);
    const sizes = await youngGenerations(true);
    // Two semi-spaces of the flag's size: the main thread's heap was configured before the step.
    assert.ok(sizes.main >= 2 * semiSpace * 0.9, `main young generation ${sizes.main} MiB`);
    assert.ok(sizes.worker <= WORKER_YOUNG_LIMIT_MB * 1.25, `worker young generation ${sizes.worker} MiB`);
  });
});
