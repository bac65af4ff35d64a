import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DASHBOARD_ORIGIN, signInToDashboard } from '../test/helpers/dashboard-session.ts';
import { createGateway } from '../test/helpers/gateway-harness.ts';
import { createTestSchema } from '../test/helpers/postgres.ts';

/**
 * `node bench/admin-session-check.ts [--requests 2000] [--stores sqlite,postgres]`: what checking a
 * dashboard session against the database (its sign-out, migration 006) adds to an admin request.
 * One in-process gateway per store; GET /dashboard through inject(), alternately with the admin
 * token (no database read) and with a session cookie (one read), after `--revoked` other sessions
 * were signed out. Prints each kind's median and p99 in microseconds.
 */
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    revoked: { type: 'string', default: '1000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const REQUESTS = Number(values.requests);
const REVOKED = Number(values.revoked);
const ADMIN_TOKEN = 'admin-token-for-the-session-bench';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

async function measure(store: string, env: Record<string, string>): Promise<void> {
  const gateway = await createGateway({ env: { ADMIN_TOKEN, ...env } });
  try {
    for (let i = 0; i < REVOKED; i++) {
      const cookie = await signInToDashboard(gateway, ADMIN_TOKEN);
      await gateway.gateway.inject({
        method: 'POST',
        url: '/dashboard/sign-out',
        headers: { origin: DASHBOARD_ORIGIN, cookie },
      });
    }
    const kinds = {
      token: { authorization: `Bearer ${ADMIN_TOKEN}` },
      session: { cookie: await signInToDashboard(gateway, ADMIN_TOKEN) },
    };
    const times: Record<keyof typeof kinds, number[]> = { token: [], session: [] };
    for (let i = 0; i < REQUESTS + 200; i++) {
      for (const kind of ['token', 'session'] as const) {
        const started = performance.now();
        const reply = await gateway.gateway.inject({
          method: 'GET',
          url: '/dashboard',
          headers: kinds[kind],
        });
        const us = (performance.now() - started) * 1000;
        if (!reply.body.includes('dashboard.js')) throw new Error(`${kind}: not signed in`);
        if (i >= 200) times[kind].push(us); // the first 200 warm up
      }
    }
    for (const kind of ['token', 'session'] as const) {
      const sorted = times[kind].sort((a, b) => a - b);
      console.log(
        `${store}: GET /dashboard with the ${kind}: median ${percentile(sorted, 0.5).toFixed(0)} µs, p99 ${percentile(sorted, 0.99).toFixed(0)} µs (${sorted.length} requests)`,
      );
    }
  } finally {
    await gateway.close();
  }
}

for (const store of values.stores.split(',')) {
  if (store === 'sqlite') await measure(store, { DATA_DIR: mkdtempSync(join(tmpdir(), 'session-bench-')) });
  else if (store === 'postgres') {
    const schema = await createTestSchema();
    try {
      await measure(store, { DATA_DIR: ':memory:', DATABASE_URL: schema.url });
    } finally {
      await schema.drop();
    }
  } else throw new Error(`unknown store ${store}`);
}
