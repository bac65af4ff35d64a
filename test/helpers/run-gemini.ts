import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientBinary, makeTempDir } from './client-package.ts';
import { type BoundedRun, runBounded } from './run-bounded.ts';
import { writeFiles } from './run-claude.ts';

/**
 * The settings that keep Gemini CLI (0.61) on its base URL and quiet: the API-key login chosen
 * (else it stops with "Invalid auth method selected"), usage statistics and telemetry off, no
 * update check. Written to `$HOME/.gemini/settings.json` of a fresh HOME, so no user's settings,
 * credentials or history are read or written.
 */
const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

export interface GeminiRunOptions {
  /** GOOGLE_GEMINI_BASE_URL: the gateway's origin, or a mock's. */
  baseUrl: string;
  /** GEMINI_API_KEY: sent in x-goog-api-key. */
  apiKey: string;
  prompt: string;
  model: string;
  /** Files to put in the working directory first. */
  files?: Record<string, string | Uint8Array>;
  /** Default 90 s. */
  timeoutMs?: number;
}

export interface GeminiRun extends BoundedRun {
  /** `--output-format json`'s object (`response`, `stats`, `error`), when stdout held one. */
  result: Record<string, any> | undefined;
}

/**
 * Runs `gemini -p PROMPT -m MODEL --output-format json --approval-mode yolo` as a user would from
 * a shell (yolo: the shell tool runs without a person to approve it, as non-interactive runs
 * need), on the Node that runs the tests, with a temporary HOME and working directory (trusted
 * through GEMINI_CLI_TRUST_WORKSPACE, else a headless run stops) and a time limit. The caller
 * skips first when the client is not installed (skipUnlessInstalled('gemini')).
 */
export async function runGemini(options: GeminiRunOptions): Promise<GeminiRun> {
  const binary = clientBinary('gemini');
  if (binary === undefined) throw new Error('gemini is not installed: skip with skipUnlessInstalled first');
  const home = makeTempDir('gemini-home');
  const workdir = makeTempDir('gemini-work');
  try {
    mkdirSync(join(home.path, '.gemini'));
    writeFileSync(join(home.path, '.gemini', 'settings.json'), JSON.stringify(SETTINGS));
    writeFiles(workdir.path, options.files ?? {});
    const run = await runBounded({
      file: process.execPath,
      args: [
        binary,
        '-p',
        options.prompt,
        '-m',
        options.model,
        '--output-format',
        'json',
        '--approval-mode',
        'yolo',
      ],
      cwd: workdir.path,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home.path,
        GOOGLE_GEMINI_BASE_URL: options.baseUrl,
        GEMINI_API_KEY: options.apiKey,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
      timeoutMs: options.timeoutMs ?? 90_000,
      // An empty stdin: Gemini CLI adds what it reads there to the prompt.
      input: '',
    });
    return { ...run, result: readResult(run.stdout) };
  } finally {
    home.remove();
    workdir.remove();
  }
}

function readResult(stdout: string): Record<string, any> | undefined {
  const start = stdout.indexOf('{');
  if (start === -1) return undefined;
  try {
    return JSON.parse(stdout.slice(start)) as Record<string, any>;
  } catch {
    return undefined;
  }
}
