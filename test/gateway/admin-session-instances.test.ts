import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DASHBOARD_ORIGIN, signInToDashboard } from '../helpers/dashboard-session.ts';
import { type Harness, type HarnessOptions, shareGateway } from '../helpers/gateway-harness.ts';
import { createTestSchema } from '../helpers/postgres.ts';

const ADMIN_TOKEN = 'admin-token-for-the-instance-tests';

async function signOut(gateway: Harness, cookie: string): Promise<number> {
  const reply = await gateway.gateway.inject({
    method: 'POST',
    url: '/dashboard/sign-out',
    headers: { origin: DASHBOARD_ORIGIN, cookie },
  });
  return reply.statusCode;
}

/** Whether `gateway` takes `cookie` as a session: on the admin API, and on the dashboard's page. */
async function acceptsSession(gateway: Harness, cookie: string): Promise<boolean> {
  const api = await gateway.get('/admin/api/usage', { auth: false, headers: { cookie } });
  const page = await gateway.get('/dashboard', { auth: false, headers: { cookie } });
  assert.equal(page.status, 200, page.text);
  const shell = /dashboard\/assets\/dashboard\.js/.test(page.text);
  const form = /<form method="post" action="\/dashboard\/sign-in">/.test(page.text);
  assert.ok(shell !== form, 'the page is the dashboard or the sign-in form');
  if (api.status === 200) assert.ok(shell, 'the API and the page agree');
  else {
    assert.equal(api.status, 401, api.text);
    assert.equal(api.body.error.code, 'unauthorized');
    assert.ok(form, 'the API and the page agree');
  }
  return api.status === 200;
}

/** Two gateways on one database, from `env()` (read when they start, after the database is made). */
function describeTwoInstances(engine: string, env: () => Record<string, string>): void {
  describe(`dashboard sessions across two instances: ${engine}`, () => {
    const options = (): HarnessOptions => ({ env: { ADMIN_TOKEN, ...env() } });
    const a = shareGateway(options);
    const b = shareGateway(options);

    it('a session signed out on one instance is refused by the other', async () => {
      const cookie = await signInToDashboard(a, ADMIN_TOKEN);
      const other = await signInToDashboard(a, ADMIN_TOKEN);
      assert.equal(await acceptsSession(b, cookie), true, 'any instance accepts the session');
      assert.equal(await signOut(a, cookie), 303);
      assert.equal(await acceptsSession(a, cookie), false);
      assert.equal(await acceptsSession(b, cookie), false, 'the sign-out on A holds on B');
      assert.equal(await acceptsSession(b, other), true, 'other sessions go on');
    });

    it('signing the same session out on both instances at once is fine', async () => {
      const cookie = await signInToDashboard(b, ADMIN_TOKEN);
      const statuses = await Promise.all([signOut(a, cookie), signOut(b, cookie), signOut(a, cookie)]);
      assert.deepEqual(statuses, [303, 303, 303]);
      assert.equal(await acceptsSession(a, cookie), false);
      assert.equal(await acceptsSession(b, cookie), false);
    });
  });
}

let schema: Awaited<ReturnType<typeof createTestSchema>>;
before(async () => {
  schema = await createTestSchema();
});
// Registered before the suites' own hooks at the top level: runs after every gateway closed.
after(() => schema.drop());
describeTwoInstances('PostgreSQL', () => ({ DATABASE_URL: schema.url }));

const dataDir = mkdtempSync(join(tmpdir(), 'admin-sessions-'));
describeTwoInstances('embedded SQLite (one DATA_DIR)', () => ({ DATA_DIR: dataDir }));
