import type { Config } from '../config/config-types.ts';
import type { AdminActor } from '../gateway/governance/admin-actor.ts';
import { governanceServices } from '../gateway/governance/governance-admin-of.ts';
import { systemClock } from '../platform/clock.ts';
import { ApiError } from '../platform/errors.ts';
import { openStorage } from '../storage/open-storage.ts';

/** The CLI acts as the admin API's admin does, audited as `cli`; a running gateway sees it within a second or so. */
export const CLI: AdminActor = { kind: 'cli' };

/** Runs `work` over the governance services of the configured storage; an API error is a message and exit 1. */
export async function withGovernance(
  config: Config,
  work: (services: ReturnType<typeof governanceServices>) => Promise<void>,
): Promise<number> {
  const storage = await openStorage(config);
  try {
    await work(governanceServices(storage, undefined, systemClock));
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      console.error(`${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}

/** `--name value` options and the positional arguments, in order. */
export function readOptions(args: readonly string[]): {
  positional: string[];
  options: Record<string, string>;
} {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith('--')) options[arg.slice(2)] = args[++i] ?? '';
    else positional.push(arg);
  }
  return { positional, options };
}

export function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
