import type { ConfigFile } from './config-file-schema.ts';
import { type Env, readRaw } from './env-parsers.ts';
import type { EnvVariable } from './env-variables.ts';

/** The file with the environment laid over it, and which variable set each overridden path. */
export interface LayeredSettings {
  /** Shaped like the file, but a block may hold only what the environment set (no required keys). */
  settings: ConfigFile;
  /** Setting path to the variable that set it, for error messages that should name the variable. */
  fromEnv: ReadonlyMap<string, string>;
}

/**
 * Lays the environment over the YAML file: each variable that is set (and not blank) is parsed
 * and written at its path, so the environment wins over the file; the loader then fills what is
 * still missing from the defaults. The file is not changed.
 */
export function applyEnvironment(
  file: ConfigFile,
  env: Env,
  variables: readonly EnvVariable[],
): LayeredSettings {
  const settings = structuredClone(file) as Record<string, unknown>;
  const fromEnv = new Map<string, string>();
  for (const { name, path, parse, appends } of variables) {
    const raw = readRaw(env, name);
    if (raw === undefined) continue;
    const value: unknown = parse(raw, name);
    const keys = path.split('.');
    const last = keys.pop() as string;
    let parent = settings;
    for (const key of keys) {
      parent[key] ??= {};
      parent = parent[key] as Record<string, unknown>;
    }
    const before = parent[last];
    parent[last] = appends ? added(before, value) : value;
    fromEnv.set(path, name);
  }
  return { settings: settings as ConfigFile, fromEnv };
}

/** A list the environment adds to, or a map whose entries it adds (replacing those of the same key). */
function added(before: unknown, value: unknown): unknown {
  if (Array.isArray(before) && Array.isArray(value)) return [...before, ...value];
  if (isMap(before) && isMap(value)) return { ...before, ...value };
  return value;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
