import { RE2JS } from 're2js';
import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import {
  GUARD_NAME_PATTERN,
  type GuardFile,
  type GuardPhase,
  type GuardrailSettings,
  type GuardrailsFile,
  type GuardSettings,
  PII_DETECTOR_NAMES,
  SECRET_DETECTOR_NAMES,
  WEBHOOK_DEFAULT_MAX_RESPONSE_BYTES,
  WEBHOOK_DEFAULT_TIMEOUT_MS,
} from './guardrail-settings.ts';

/** The largest custom pattern, in characters and in RE2 instructions (CONTRACT 6.6: bounded in size). */
export const MAX_PATTERN_LENGTH = 1000;
export const MAX_PATTERN_PROGRAM = 5000;

/**
 * The `guardrails` block, checked: every guard's settings fit its type, a custom pattern runs on
 * RE2 (linear-time) within the size bound, every detector named exists, every guard is attached
 * to something and every attachment names a guard. Each refusal names the setting.
 */
export function readGuardrailSettings(
  given: GuardrailsFile | undefined,
  tasks: readonly string[],
): GuardrailSettings {
  const file = given ?? {};
  const guards = Object.entries(file.guards ?? {}).map(([name, guard]) => readGuard(name, guard));
  const known = new Set(guards.map((guard) => guard.name));
  const attached = new Set<string>();
  const attachments = { apps: file.apps ?? {}, teams: file.teams ?? {}, routes: file.routes ?? {} };
  for (const [level, map] of Object.entries(attachments)) {
    for (const [owner, names] of Object.entries(map)) {
      if (level === 'routes' && owner !== 'default' && !tasks.includes(owner))
        throw new ConfigError(`guardrails.routes.${owner}`, "names no task of routing.tasks (nor 'default')");
      for (const name of names) {
        if (!known.has(name))
          throw new ConfigError(
            `guardrails.${level}.${owner}`,
            `names the guard '${name}', which guardrails.guards does not define`,
          );
        attached.add(name);
      }
    }
  }
  for (const guard of guards) {
    if (!attached.has(guard.name))
      throw new ConfigError(
        `guardrails.guards.${guard.name}`,
        'is attached to nothing (guardrails.apps, teams or routes)',
      );
  }
  return { guards, ...attachments };
}

function readGuard(name: string, guard: GuardFile): GuardSettings {
  const setting = `guardrails.guards.${name}`;
  if (!new RegExp(GUARD_NAME_PATTERN).test(name))
    throw new ConfigError(setting, 'is not a guard name (letters, digits, _ . -, at most 64 characters)');
  const phases: GuardPhase[] = [...new Set(typeof guard.phase === 'string' ? [guard.phase] : guard.phase)];
  const action = guard.action ?? (guard.type === 'webhook' ? 'block' : undefined);
  if (action === undefined) throw new ConfigError(`${setting}.action`, 'is required: block, mask or log');
  refuseForeignKeys(setting, guard);
  switch (guard.type) {
    case 'secrets':
    case 'pii': {
      const names: readonly string[] = guard.type === 'secrets' ? SECRET_DETECTOR_NAMES : PII_DETECTOR_NAMES;
      for (const detector of guard.detectors ?? []) {
        if (!names.includes(detector))
          throw new ConfigError(
            `${setting}.detectors`,
            `has '${detector}', which is no ${guard.type} detector (${names.join(', ')})`,
          );
      }
      return { name, type: guard.type, phases, action, detectors: guard.detectors ?? [...names] };
    }
    case 'regex': {
      if (guard.pattern === undefined)
        throw new ConfigError(`${setting}.pattern`, 'is required for a regex guard');
      checkPattern(`${setting}.pattern`, guard.pattern, guard.caseInsensitive ?? false);
      return {
        name,
        type: 'regex',
        phases,
        action,
        pattern: guard.pattern,
        caseInsensitive: guard.caseInsensitive ?? false,
      };
    }
    case 'words':
      if (guard.words === undefined)
        throw new ConfigError(`${setting}.words`, 'is required for a words guard');
      return { name, type: 'words', phases, action, words: guard.words };
    case 'webhook':
      return {
        name,
        type: 'webhook',
        phases,
        action,
        url:
          checkUrl(`${setting}.url`, guard.url, ['http:', 'https:'], { requireHost: true }) ??
          missing(`${setting}.url`),
        headers: { ...guard.headers },
        timeoutMs: guard.timeoutMs ?? WEBHOOK_DEFAULT_TIMEOUT_MS,
        failureMode: guard.failureMode ?? 'closed',
        maxResponseBytes: guard.maxResponseBytes ?? WEBHOOK_DEFAULT_MAX_RESPONSE_BYTES,
      };
  }
}

const KEYS_OF: Record<GuardFile['type'], readonly string[]> = {
  secrets: ['detectors'],
  pii: ['detectors'],
  regex: ['pattern', 'caseInsensitive'],
  words: ['words'],
  webhook: ['url', 'headers', 'timeoutMs', 'failureMode', 'maxResponseBytes'],
};
const COMMON_KEYS = ['type', 'phase', 'action'];

/** A key of another type's (a `pattern` on a words guard) is a mistake worth stopping for. */
function refuseForeignKeys(setting: string, guard: GuardFile): void {
  for (const key of Object.keys(guard)) {
    if (!COMMON_KEYS.includes(key) && !KEYS_OF[guard.type].includes(key))
      throw new ConfigError(`${setting}.${key}`, `is not a setting of a ${guard.type} guard`);
  }
}

/** A pattern RE2 runs (linear-time), within the size bound, that cannot match nothing. */
export function checkPattern(setting: string, pattern: string, caseInsensitive: boolean): void {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new ConfigError(setting, `is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH}`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new ConfigError(
      setting,
      `is not a linear-time pattern (guards run RE2: no lookaround, no backreferences, repetition up to 1000): ${(error as Error).message}`,
    );
  }
  if (compiled.programSize() > MAX_PATTERN_PROGRAM)
    throw new ConfigError(
      setting,
      `compiles to ${compiled.programSize()} RE2 instructions; at most ${MAX_PATTERN_PROGRAM}`,
    );
  if (compiled.matches('')) throw new ConfigError(setting, 'matches the empty string');
}

function missing(setting: string): never {
  throw new ConfigError(setting, 'is required for a webhook guard');
}
