import type { Clock } from '../../platform/clock.ts';
import { roundMs } from '../../platform/clock.ts';
import type { OutboxStats } from '../../storage/ports.ts';

/**
 * The health report of surface B, in the shape of draft-inadvisable-health-check
 * ("application/health+json"): an overall status, and per check `"component:measurement"` a list
 * of observations. The overall status is the worst of the checks.
 */
export type HealthStatus = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  componentType: string;
  observedValue?: unknown;
  observedUnit?: string;
  status: HealthStatus;
  time: string;
  output?: string;
}

export interface HealthReport {
  status: HealthStatus;
  version: string;
  service: string;
  description: string;
  timestamp: string;
  checks: Record<string, CheckResult[]>;
}

export interface OutboxThresholds {
  /** Pending entries at which the backlog warns. */
  pendingWarn: number;
  /** Age (ms) of the oldest pending entry at which the backlog warns. */
  oldestPendingWarnMs: number;
}

export interface HealthSources {
  /** Storage liveness; rejects when the database is unusable. */
  ping(): Promise<void>;
  /** Outbox figures; undefined when no async mailing-list upstream is configured. */
  outboxStats: (() => Promise<OutboxStats>) | undefined;
  mailTransport: string;
  doubleOptIn: boolean;
  clock: Clock;
  version: string;
  pingTimeoutMs: number;
  outbox: OutboxThresholds;
}

const ORDER: Record<HealthStatus, number> = { pass: 0, warn: 1, fail: 2 };

export function pickWorstStatus(statuses: readonly HealthStatus[]): HealthStatus {
  return statuses.reduce<HealthStatus>((worst, s) => (ORDER[s] > ORDER[worst] ? s : worst), 'pass');
}

export async function buildHealthReport(sources: HealthSources): Promise<HealthReport> {
  const time = new Date(sources.clock.now()).toISOString();
  const checks: Record<string, CheckResult[]> = {
    'storage:responseTime': [await checkStorage(sources, time)],
    'mail:transport': [
      {
        componentType: 'component',
        observedValue: sources.mailTransport,
        status: 'pass',
        time,
        output: sources.doubleOptIn ? 'double opt-in' : 'no mail transport: single opt-in',
      },
    ],
  };
  if (sources.outboxStats !== undefined) Object.assign(checks, await checkOutbox(sources, time));
  const status = pickWorstStatus(Object.values(checks).flatMap((list) => list.map((check) => check.status)));
  return {
    status,
    version: sources.version,
    service: 'public-site-api',
    description: 'Public site API (surface B)',
    timestamp: time,
    checks,
  };
}

async function checkStorage(sources: HealthSources, time: string): Promise<CheckResult> {
  const started = sources.clock.monotonic();
  try {
    await withTimeout(sources.ping(), sources.pingTimeoutMs);
    const elapsed = roundMs(sources.clock.monotonic() - started);
    return { componentType: 'datastore', observedValue: elapsed, observedUnit: 'ms', status: 'pass', time };
  } catch (error) {
    const timedOut = error instanceof TimeoutError;
    // The reason stays generic: a driver's message can name hosts or users.
    return {
      componentType: 'datastore',
      status: 'fail',
      time,
      output: timedOut ? 'timed out' : 'unavailable',
    };
  }
}

async function checkOutbox(sources: HealthSources, time: string): Promise<Record<string, CheckResult[]>> {
  let stats: OutboxStats;
  try {
    stats = await withTimeout((sources.outboxStats as () => Promise<OutboxStats>)(), sources.pingTimeoutMs);
  } catch {
    const unknown: CheckResult = {
      componentType: 'component',
      status: 'warn',
      time,
      output: 'could not be read',
    };
    return { 'newsletterOutbox:pending': [unknown] };
  }
  return judgeOutbox(stats, sources.clock.now(), sources.outbox, time);
}

/** Pure: the outbox observations and whether they warn. Failed entries are reported, not alarmed on. */
export function judgeOutbox(
  stats: OutboxStats,
  now: number,
  thresholds: OutboxThresholds,
  time: string,
): Record<string, CheckResult[]> {
  const age = stats.oldestPendingAt === null ? 0 : Math.max(0, now - stats.oldestPendingAt);
  return {
    'newsletterOutbox:pending': [
      {
        componentType: 'component',
        observedValue: stats.pending,
        status: stats.pending >= thresholds.pendingWarn ? 'warn' : 'pass',
        time,
      },
    ],
    'newsletterOutbox:oldestPendingAge': [
      {
        componentType: 'component',
        observedValue: Math.round(age / 1000),
        observedUnit: 's',
        status: age >= thresholds.oldestPendingWarnMs ? 'warn' : 'pass',
        time,
      },
    ],
    'newsletterOutbox:failed': [
      { componentType: 'component', observedValue: stats.failed, status: 'pass', time },
    ],
  };
}

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
