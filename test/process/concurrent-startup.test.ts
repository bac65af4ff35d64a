import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSqliteStorage } from '../../src/storage/embedded/sqlite-storage.ts';
import type { Storage } from '../../src/storage/ports.ts';
import { openPostgresStorage } from '../../src/storage/postgres/pg-storage.ts';
import { createTestSchema } from '../helpers/postgres.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

// Each round starts its instances at the same moment on a fresh database. The race being
// checked (two instances creating one app) is a matter of milliseconds, so one round proves
// little; several rounds of several processes make a lost race show up on nearly every run.
const ROUNDS = 3;
const INSTANCES = 4;
const SEEDS = [
  { name: 'rpm', secret: 'rpm-secret-0123456789' },
  { name: 'batch-jobs', secret: 'batch-secret-0123456789' },
];
const DEMO_SECRET_FILE = 'demo-app.secret';

interface Round {
  servers: RunningServer[];
  dataDirs: string[];
}

/** Spawns `INSTANCES` gateways at once and fails with every failed instance's output. */
async function startTogether(env: Record<string, string>, dataDirs: string[]): Promise<Round> {
  const results = await Promise.allSettled(
    dataDirs.map((dataDir) =>
      spawnServer({ SURFACES: 'gateway', LOG_LEVEL: 'info', ...env, DATA_DIR: dataDir }, 1),
    ),
  );
  const servers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
  if (failures.length > 0) {
    await Promise.all(servers.map((server) => server.stop()));
    assert.fail(
      `${failures.length} of ${dataDirs.length} instances did not start:\n${failures.join('\n---\n')}`,
    );
  }
  return { servers, dataDirs };
}

async function stopAll(round: Round): Promise<void> {
  const codes = await Promise.all(round.servers.map((server) => server.stop()));
  assert.deepEqual(
    codes,
    round.servers.map(() => 0),
    'every instance stops cleanly',
  );
}

async function chatStatus(server: RunningServer, app: string, secret: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${server.gatewayPort}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-app': app, 'x-gateway-secret': secret },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function assertEveryInstanceAccepts(round: Round, app: string, secret: string): Promise<void> {
  const statuses = await Promise.all(round.servers.map((server) => chatStatus(server, app, secret)));
  assert.deepEqual(
    statuses,
    round.servers.map(() => 200),
    `app '${app}' works on every instance`,
  );
}

/** The demo secret files the instances wrote, read from each instance's own DATA_DIR. */
function readDemoSecrets(dataDirs: readonly string[]): string[] {
  return [...new Set(dataDirs)]
    .map((dir) => join(dir, DEMO_SECRET_FILE))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8').trim());
}

async function appNames(storage: Storage): Promise<string[]> {
  try {
    return (await storage.apps.listApps()).map((app) => app.name);
  } finally {
    await storage.close();
  }
}

const freshDirs = (count: number): string[] =>
  Array.from({ length: count }, () => mkdtempSync(join(tmpdir(), 'startup-')));

function removeDirs(dataDirs: readonly string[]): void {
  for (const dataDir of new Set(dataDirs)) rmSync(dataDir, { recursive: true, force: true });
}

describe('instances started at the same moment on one PostgreSQL database', () => {
  it(`all start with the same GATEWAY_APPS (${ROUNDS} rounds of ${INSTANCES}), and every seeded credential works on each`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const schema = await createTestSchema();
      try {
        const gatewayApps = SEEDS.map((seed) => `${seed.name}:${seed.secret}`).join(',');
        const started = await startTogether(
          { DATABASE_URL: schema.url, GATEWAY_APPS: gatewayApps },
          freshDirs(INSTANCES),
        );
        try {
          for (const seed of SEEDS) await assertEveryInstanceAccepts(started, seed.name, seed.secret);
          assert.deepEqual(readDemoSecrets(started.dataDirs), [], 'no demo app when apps are seeded');
        } finally {
          await stopAll(started);
          removeDirs(started.dataDirs);
        }
        assert.deepEqual(
          await appNames(await openPostgresStorage(schema.url)),
          SEEDS.map((seed) => seed.name).sort(),
        );
      } finally {
        await schema.drop();
      }
    }
  });

  it(`all start with no apps configured (${ROUNDS} rounds of ${INSTANCES}): one demo app, one secret file, working everywhere`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const schema = await createTestSchema();
      try {
        const started = await startTogether({ DATABASE_URL: schema.url }, freshDirs(INSTANCES));
        try {
          const secrets = readDemoSecrets(started.dataDirs);
          assert.equal(
            secrets.length,
            1,
            'exactly one instance (the one that created demo) wrote its secret',
          );
          await assertEveryInstanceAccepts(started, 'demo', secrets[0] as string);
        } finally {
          await stopAll(started);
          removeDirs(started.dataDirs);
        }
        assert.deepEqual(await appNames(await openPostgresStorage(schema.url)), ['demo']);
      } finally {
        await schema.drop();
      }
    }
  });
});

describe('instances started at the same moment on one embedded database (one DATA_DIR)', () => {
  it(`all start, migrate once and create one demo app whose secret file works (${ROUNDS} rounds of ${INSTANCES})`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [dataDir] = freshDirs(1) as [string];
      const started = await startTogether(
        {},
        Array.from({ length: INSTANCES }, () => dataDir),
      );
      try {
        try {
          const secrets = readDemoSecrets(started.dataDirs);
          assert.equal(secrets.length, 1);
          await assertEveryInstanceAccepts(started, 'demo', secrets[0] as string);
        } finally {
          await stopAll(started);
        }
        assert.deepEqual(await appNames(openSqliteStorage(dataDir)), ['demo']);
      } finally {
        removeDirs([dataDir]);
      }
    }
  });
});
