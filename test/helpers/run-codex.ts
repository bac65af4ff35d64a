import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientBinary, makeTempDir } from './client-package.ts';
import { type BoundedRun, runBounded } from './run-bounded.ts';
import { writeFiles } from './run-claude.ts';

/** The variable named by the provider's `env_key`: Codex sends its value as `Authorization: Bearer`. */
export const CODEX_KEY_VARIABLE = 'GATEWAY_API_KEY';

export interface CodexConfigOptions {
  /** The provider's base URL, with `/v1`: Codex appends `/responses`. */
  baseUrl: string;
  model?: string;
  /** Codex's own retries of a failed request or stream (its defaults are 4 and 5). */
  requestMaxRetries?: number;
  streamMaxRetries?: number;
  /** Let Codex try `GET /v1/responses` as a WebSocket first (off by default for a custom provider). */
  supportsWebsockets?: boolean;
}

/**
 * A config.toml for `codex exec` (0.171) against a gateway: a custom provider on the Responses
 * wire (`wire_api = "responses"`, the only value it still accepts), its key read from
 * CODEX_KEY_VARIABLE; no approval prompts and a sandbox that may write in the working directory,
 * so that a patch is applied without a person. Seen with strace: `features.plugins = false` stops
 * the start-up lookups of github.com and chatgpt.com (the plugin catalogue); analytics and the
 * update check are off too, so the only connection is to the base URL. Every key is one
 * `--strict-config` accepts.
 */
export function codexConfig(options: CodexConfigOptions): string {
  const lines = [
    `model = ${JSON.stringify(options.model ?? 'gpt-5.5')}`,
    'model_provider = "gateway"',
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    '',
    '[model_providers.gateway]',
    'name = "Gateway"',
    `base_url = ${JSON.stringify(options.baseUrl)}`,
    `env_key = "${CODEX_KEY_VARIABLE}"`,
    'wire_api = "responses"',
  ];
  if (options.requestMaxRetries !== undefined)
    lines.push(`request_max_retries = ${options.requestMaxRetries}`);
  if (options.streamMaxRetries !== undefined) lines.push(`stream_max_retries = ${options.streamMaxRetries}`);
  if (options.supportsWebsockets === true) lines.push('supports_websockets = true');
  return `${lines.join('\n')}\n`;
}

export interface CodexRunOptions extends CodexConfigOptions {
  apiKey: string;
  prompt: string;
  /** Extra arguments after `exec --strict-config --skip-git-repo-check --json`. */
  args?: readonly string[];
  files?: Record<string, string | Uint8Array>;
  /** A working directory to use (and keep); by default a fresh one, removed after the run. */
  workdir?: string;
  /** Default 60 s. */
  timeoutMs?: number;
  env?: Record<string, string>;
}

export interface CodexRun extends BoundedRun {
  /** `--json`'s events, one JSON object a line of stdout. */
  events: Record<string, any>[];
  /** The text of the last agent message, as Codex printed it. */
  lastMessage: string | undefined;
  workdir: string;
  /** The temporary CODEX_HOME it ran with (removed after the run). */
  home: string;
}

/**
 * Runs `codex exec --json PROMPT` with the test package's binary, a temporary CODEX_HOME (and
 * HOME) holding codexConfig's file, stdin closed (exec otherwise waits to read more of the
 * prompt from it), and a time limit. The caller skips first when Codex is not installed.
 */
export async function runCodex(options: CodexRunOptions): Promise<CodexRun> {
  const binary = clientBinary('codex');
  if (binary === undefined) throw new Error('codex is not installed: skip with skipUnlessInstalled first');
  const home = makeTempDir('codex-home');
  const ownWorkdir = options.workdir === undefined ? makeTempDir('codex-work') : undefined;
  const workdir = options.workdir ?? (ownWorkdir as { path: string }).path;
  try {
    writeFileSync(join(home.path, 'config.toml'), codexConfig(options));
    writeFiles(workdir, options.files ?? {});
    const run = await runBounded({
      file: binary,
      args: [
        'exec',
        '--strict-config',
        '--skip-git-repo-check',
        '--json',
        ...(options.args ?? []),
        options.prompt,
      ],
      cwd: workdir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home.path,
        CODEX_HOME: home.path,
        [CODEX_KEY_VARIABLE]: options.apiKey,
        ...options.env,
      },
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    const events = parseJsonLines(run.stdout);
    return { ...run, events, lastMessage: lastAgentMessage(events), workdir, home: home.path };
  } finally {
    home.remove();
    ownWorkdir?.remove();
  }
}

function parseJsonLines(text: string): Record<string, any>[] {
  const events: Record<string, any>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      events.push(JSON.parse(line) as Record<string, any>);
    } catch {
      // A line that is not an event (a warning printed to stdout) is not one.
    }
  }
  return events;
}

function lastAgentMessage(events: Record<string, any>[]): string | undefined {
  const messages = events.filter(
    (event) => event['type'] === 'item.completed' && event['item']?.['type'] === 'agent_message',
  );
  return messages.at(-1)?.['item']?.['text'];
}
