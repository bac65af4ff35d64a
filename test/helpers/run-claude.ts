import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clientBinary, makeTempDir } from './client-package.ts';
import { type BoundedRun, runBounded } from './run-bounded.ts';

/**
 * The environment that keeps Claude Code (2.1.x) on the given base URL and nowhere else. Seen with
 * strace: with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC it makes one connection, to the base URL,
 * and no DNS query; without it, it also resolves api.anthropic.com and sends `HEAD /api/hello` to
 * the base URL first. The others switch off what that one already covers, in case a version
 * splits them again. HOME is a fresh directory, so no user's settings, credentials or sessions
 * are read or written.
 */
export function claudeEnvironment(options: {
  baseUrl: string;
  apiKey: string;
  home: string;
  /** `x-api-key` (ANTHROPIC_API_KEY, the default) or `authorization: Bearer` (ANTHROPIC_AUTH_TOKEN). */
  keyHeader?: 'x-api-key' | 'bearer';
}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.home,
    CLAUDE_CONFIG_DIR: join(options.home, '.claude'),
    ANTHROPIC_BASE_URL: options.baseUrl,
    [options.keyHeader === 'bearer' ? 'ANTHROPIC_AUTH_TOKEN' : 'ANTHROPIC_API_KEY']: options.apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

export interface ClaudeRunOptions {
  /** Where Claude Code sends its requests: the gateway or a mock (an origin, without /v1). */
  baseUrl: string;
  apiKey: string;
  prompt: string;
  keyHeader?: 'x-api-key' | 'bearer';
  /** Extra arguments after `-p --output-format json`, such as `['--model', 'x']`. */
  args?: readonly string[];
  /** Files to put in the working directory first (relative path to content). */
  files?: Record<string, string | Uint8Array>;
  /** A working directory to use (and keep); by default a fresh one, removed after the run. */
  workdir?: string;
  /**
   * A HOME to use (and keep), for a second run that continues the first's conversation
   * (`--continue` reads the session Claude Code saved there); by default a fresh one, removed.
   */
  home?: string;
  /** Default 60 s: a plain prompt against a local mock takes about one. */
  timeoutMs?: number;
  /** More environment, laid over claudeEnvironment's. */
  env?: Record<string, string>;
}

export interface ClaudeRun extends BoundedRun {
  /** `--output-format json`'s result object (result text, usage, total_cost_usd…), when stdout held one. */
  result: Record<string, any> | undefined;
  workdir: string;
  /** The temporary HOME it ran with (removed after the run), for scrubbing recorded requests. */
  home: string;
}

/**
 * Runs `claude -p PROMPT --output-format json` as a user would from a shell, with the test
 * package's binary, a temporary HOME and working directory, and a time limit. The caller skips
 * first when the client is not installed (skipUnlessInstalled('claude')).
 */
export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const binary = clientBinary('claude');
  if (binary === undefined) throw new Error('claude is not installed: skip with skipUnlessInstalled first');
  const ownHome = options.home === undefined ? makeTempDir('claude-home') : undefined;
  const home = { path: options.home ?? (ownHome as { path: string }).path };
  const ownWorkdir = options.workdir === undefined ? makeTempDir('claude-work') : undefined;
  const workdir = options.workdir ?? (ownWorkdir as { path: string }).path;
  try {
    writeFiles(workdir, options.files ?? {});
    const run = await runBounded({
      file: binary,
      args: ['-p', options.prompt, '--output-format', 'json', ...(options.args ?? [])],
      cwd: workdir,
      env: {
        ...claudeEnvironment({
          baseUrl: options.baseUrl,
          apiKey: options.apiKey,
          home: home.path,
          ...(options.keyHeader === undefined ? {} : { keyHeader: options.keyHeader }),
        }),
        ...options.env,
      },
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return { ...run, result: parseResult(run.stdout), workdir, home: home.path };
  } finally {
    ownHome?.remove();
    ownWorkdir?.remove();
  }
}

export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

function parseResult(stdout: string): Record<string, any> | undefined {
  try {
    const value: unknown = JSON.parse(stdout);
    return typeof value === 'object' && value !== null ? (value as Record<string, any>) : undefined;
  } catch {
    return undefined;
  }
}
