import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs/platform-team-day.md'), 'utf8');
const ADMIN_TOKEN = 'platform-team-day-admin-token-0123456789';

/** The page's shell blocks, in order, as one script. */
function pageScript(): string {
  const blocks = [...PAGE.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) => block[1] as string);
  return ['set -euo pipefail', ...blocks].join('\n');
}

/**
 * docs/platform-team-day.md, run as written: every shell block in order, in bash, from the
 * checkout, against a gateway started on the default configuration with the same DATA_DIR; then
 * what each step should have changed is read back through the admin API.
 */
describe("the platform team's day (docs/platform-team-day.md)", () => {
  let server: RunningServer;
  let gateway: string;
  let dataDir: string;
  let output = '';

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-day-'));
    server = await spawnServer({ DATA_DIR: dataDir, ADMIN_TOKEN, SURFACES: 'gateway' }, 1);
    gateway = `http://127.0.0.1:${server.gatewayPort}`;
  });

  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const admin = async (path: string) => {
    const response = await fetch(`${gateway}/admin/api/${path}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(response.status, 200, path);
    return response.json() as Promise<any>;
  };

  it('runs every command of the page without an error', async () => {
    const script = pageScript();
    assert.match(script, /npm run teams -- create search/);
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: {
        // node 24 first, as `npm run` puts node_modules/.bin first for its scripts.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: dataDir,
        GATEWAY: gateway,
        ADMIN_TOKEN,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      },
    });
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, `the page's commands failed:\n${output}\n${errors}`);
  });

  it('made the team with its budgets and model cap, and the apps in it', async () => {
    const team = await admin('teams/search');
    assert.deepEqual(team.limits, {
      dailyBudgetUsd: 40,
      monthlyBudgetUsd: 500,
      perEndUser: { dailyBudgetUsd: 5 },
    });
    assert.deepEqual(team.models, ['provider-b/*']);
    assert.deepEqual([...team.apps].sort(), ['search-ci', 'search-claude-code']);
    const keys = await admin('apps/search-claude-code/keys');
    const laptop = keys.data.find((key: { name: string }) => key.name === 'alice-laptop');
    assert.equal(laptop.expiresAt, '2027-06-30T00:00:00.000Z');
  });

  it("served Alice's request on the allowed slot and refused the capped one, before any upstream call", () => {
    assert.match(output, /^provider-b: 200$/m);
    assert.match(output, /"code":"model_not_allowed"/);
  });

  it('showed spend by person, by team, each budget and the audit', () => {
    assert.match(output, /\{"endUser":"alice@example\.com","requests":1,"costUsd":[\d.e-]+\}/);
    assert.match(output, /\{"team":"search","requests":1,/);
    assert.match(
      output,
      /\{"scope":"team","name":"search","window":"day","spentUsd":[\d.e-]+,"limitUsd":40,/,
    );
    // Alice's use of the team's per-end-user daily budget.
    assert.match(
      output,
      /\{"scope":"endUser","name":"alice@example\.com","window":"day","spentUsd":[\d.e-]+,"limitUsd":5,/,
    );
    assert.match(output, /\{"actor":"cli","action":"team\.update","target":"team:search"\}/);
    // The team token reads its own team's spend.
    assert.match(output, /\{"app":"search-claude-code","requests":1,/);
  });
});
