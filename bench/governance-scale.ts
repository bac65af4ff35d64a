import { randomBytes } from 'node:crypto';
import { generateSecret, hashSecretKeyed } from '../src/platform/secret-hash.ts';
import { openSqlite } from '../src/storage/embedded/open-sqlite.ts';
import { type CaseResult, measureCase, medianRound } from './measure.ts';
import type { Server } from './processes.ts';
import { variantTable } from './report.ts';

/** The store of a company-sized gateway (issue 39): 10,000 apps in 100 teams, 5 keys each. */
export const SCALE = { apps: 10_000, teams: 100, keysPerApp: 5 } as const;

/**
 * Writes `SCALE` into the embedded store of `dataDir` before any gateway opens it: teams with
 * limits and model lists, apps in them with their own, and each app's keys (keyed hashes of real
 * generated secrets, as the admin API stores them), in one transaction, at one governance version.
 * The bench app itself is left to GATEWAY_APPS, as in the default run: only the store's size differs.
 */
export function seedGovernanceStore(dataDir: string, scale = SCALE): { apps: number; keys: number } {
  const db = openSqlite(dataDir);
  const now = Date.now();
  const version = 2;
  const settings = (i: number) =>
    JSON.stringify({
      limits: { requestsPerMinute: 600 + i, dailyBudgetUsd: 10 + (i % 50) },
      models: ['gpt-4o-mini', `team-${i % scale.teams}-*`],
    });
  db.exec('BEGIN IMMEDIATE');
  try {
    const team = db.prepare(
      'INSERT INTO teams (name, settings, source, created_at, updated_at, deleted_at, version) VALUES (?, ?, ?, ?, ?, NULL, ?)',
    );
    for (let t = 0; t < scale.teams; t++) team.run(`team-${t}`, settings(t), 'api', now, now, version);
    const app = db.prepare(
      'INSERT INTO apps (name, secret_hash, created_at, team, settings, source, version) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const key = db.prepare(
      'INSERT INTO app_keys (app, id, name, secret_hash, created_at, expires_at, version) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    // A salt and MAC per key, as stored; computing 50,000 MACs of fresh secrets takes a second.
    const hash = () => hashSecretKeyed(generateSecret());
    for (let a = 0; a < scale.apps; a++) {
      const name = `scale-app-${a}`;
      const primary = hash();
      app.run(name, primary, now, `team-${a % scale.teams}`, settings(a), 'api', version);
      key.run(name, 'primary', 'primary', primary, now, null, version);
      for (let k = 1; k < scale.keysPerApp; k++)
        key.run(
          name,
          `k${randomBytes(6).toString('hex')}`,
          `laptop-${k}`,
          hash(),
          now,
          now + 86_400_000 * 90,
          version,
        );
    }
    db.prepare('UPDATE governance_clock SET version = ? WHERE id = 1').run(version);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  } finally {
    db.close();
  }
  return { apps: scale.apps, keys: scale.apps * scale.keysPerApp };
}

export interface ScaleOptions {
  /** The gateway on an empty store (its one app from GATEWAY_APPS), and one on the seeded store. */
  oneApp: Server;
  scaled: Server;
  forwarder: Server;
  mock: Server;
  concurrencies: readonly number[];
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  log: (line: string) => void;
}

/**
 * Chat (the native route, non-streaming) on the gateway with 1 app in its store against one with
 * 10,000 apps and 50,000 keys, and the thin forwarder, in interleaved rounds (the median round
 * of each): the per-request cost of the key check and the allow lists must not grow with the store.
 */
export async function measureGovernanceScale(options: ScaleOptions): Promise<CaseResult[]> {
  const cases: [string, Server, 'gateway' | 'forwarder'][] = [
    ['default', options.oneApp, 'gateway'],
    [
      `${SCALE.apps.toLocaleString('en')} apps, ${(SCALE.apps * SCALE.keysPerApp).toLocaleString('en')} keys`,
      options.scaled,
      'gateway',
    ],
    ['thin forwarder', options.forwarder, 'forwarder'],
  ];
  const run = (
    label: string,
    server: Server,
    target: 'gateway' | 'forwarder',
    concurrency: number,
    secs: number,
    warm: number,
  ) =>
    measureCase({
      target,
      server,
      mock: options.mock,
      workload: 'chat',
      concurrency,
      seconds: secs,
      warmupSeconds: warm,
      variant: label,
    });
  for (const [label, server, target] of cases) await run(label, server, target, 10, 1, 0);
  const rows: CaseResult[] = [];
  for (const concurrency of options.concurrencies) {
    const runs = new Map<string, CaseResult[]>();
    for (let round = 0; round < options.rounds; round++)
      for (const [label, server, target] of cases) {
        const row = await run(label, server, target, concurrency, options.seconds, options.warmupSeconds);
        if (row.requests === 0 || row.failures > 0)
          throw new Error(`${label}: ${row.requests} answered, ${row.failures} failed (c=${concurrency})`);
        runs.set(label, [...(runs.get(label) ?? []), row]);
        options.log(
          `governance scale, ${label}, c=${concurrency}: ${row.rps.toFixed(0)} req/s, ${row.cpuUsPerRequest.toFixed(0)} µs CPU/req`,
        );
      }
    rows.push(...[...runs.values()].map(medianRound));
  }
  return rows;
}

export function governanceScaleSection(rows: readonly CaseResult[]): string {
  return [
    '## Chat with a company-sized store (issue 39)',
    '',
    `The gateway with its one app against one whose store holds ${SCALE.apps.toLocaleString('en')} apps in ${SCALE.teams} teams and ${(SCALE.apps * SCALE.keysPerApp).toLocaleString('en')} keys (written before it started), and the thin forwarder, on the native chat route; "req/s vs default" is against the one-app gateway.`,
    '',
    // The CPU column against the forwarder reads its row as the main table's (variant `default`).
    variantTable(
      rows,
      rows.map((row) => (row.target === 'forwarder' ? { ...row, variant: 'default' } : row)),
    ),
  ].join('\n');
}
