import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, release, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  kernel: string;
  node: string;
  commit: string;
  /** Files under version control with uncommitted changes when the run was made. */
  dirty: boolean;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** What the results depend on, written beside them. */
export function describeMachine(): Machine {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // Not Linux: the model stays unknown.
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    node: process.version,
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
  };
}
