import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROOT } from './processes.ts';

export interface Baseline {
  /** The revision as given (`HEAD~3`, a tag, a commit). */
  rev: string;
  /** Its commit, abbreviated. */
  commit: string;
  /** Where its files are: a checkout the gateway can start from. */
  root: URL;
}

/**
 * Another revision of this repository, unpacked under bench/results/tmp/ (`git archive`, so the
 * repository's own work tree and worktree list are left alone) for `--baseline`: its gateway runs
 * beside this one, in the same minutes, against the same mock and load. It uses this checkout's
 * node_modules, so a revision whose dependencies differ is measured with today's.
 */
export function prepareBaseline(rev: string): Baseline {
  const repository = fileURLToPath(ROOT);
  const commit = execFileSync('git', ['rev-parse', '--short=12', `${rev}^{commit}`], {
    cwd: repository,
    encoding: 'utf8',
  }).trim();
  const root = new URL(`bench/results/tmp/baseline-${commit}/`, ROOT);
  const directory = fileURLToPath(root);
  if (!existsSync(new URL('package.json', root))) {
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', commit], {
      cwd: repository,
      maxBuffer: 512 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', directory], { input: archive });
    symlinkSync(fileURLToPath(new URL('node_modules', ROOT)), fileURLToPath(new URL('node_modules', root)));
  }
  return { rev, commit, root };
}
