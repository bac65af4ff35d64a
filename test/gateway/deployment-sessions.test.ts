import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { shareGateway } from '../helpers/gateway-harness.ts';
import { deploymentsSlot, type MockDeployments, startMockDeployments } from '../helpers/mock-deployments.ts';

const messages = [{ role: 'user', content: 'keep my cache warm' }];
const failing = { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } };

describe('sessions stay on one deployment', () => {
  let deployments: MockDeployments;
  before(async () => {
    deployments = await startMockDeployments(['one', 'two', 'three']);
  });
  const gw = shareGateway(() => ({
    file: {
      providers: { 'provider-a': deploymentsSlot(deployments) },
      routing: { chat: [{ provider: 'provider-a' }] },
      // A failing deployment's circuit opens after 3 calls and is probed again after 1 s.
      circuit: { failureThreshold: 3, cooldownMs: 1_000 },
    },
  }));
  after(() => deployments.close());

  /** The deployment that answered each response id, from the ledger. */
  async function deploymentsOf(ids: string[]): Promise<(string | null)[]> {
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 10_000 });
    const byId = new Map(rows.map((row) => [row.id, row.deployment]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** One native chat per session, `x-session-id: s-<i>`; the deployment that answered each. */
  async function roundOfSessions(count: number): Promise<(string | null)[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await gw.chat({ messages }, { headers: { 'x-session-id': `s-${i}` } });
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.id);
    }
    return deploymentsOf(ids);
  }

  it("is read from every door: x-session-id, the OpenAI door's prompt_cache_key, Claude Code's header, metadata.user_id", async () => {
    const key = 'session-across-doors';
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await gw.chat({ messages }, { headers: { 'x-session-id': key } })).body.id);
      const openai = await gw.post('/v1/chat/completions', {
        model: 'provider-a/gpt-4o-mini',
        messages,
        prompt_cache_key: key,
      });
      assert.equal(openai.status, 200, openai.text);
      ids.push(openai.body.id);
      const body = { model: 'provider-a/gpt-4o-mini', max_tokens: 64, messages };
      const claudeCode = await gw.post('/v1/messages', body, {
        headers: { 'x-claude-code-session-id': key },
      });
      assert.equal(claudeCode.status, 200, claudeCode.text);
      ids.push(claudeCode.body.id);
      const anthropic = await gw.post('/v1/messages', { ...body, metadata: { user_id: key } });
      assert.equal(anthropic.status, 200, anthropic.text);
      ids.push(anthropic.body.id);
    }
    const served = await deploymentsOf(ids);
    assert.equal(new Set(served).size, 1, `one deployment for the session: ${served.join(', ')}`);
    assert.ok(deployments.names.includes(served[0] ?? ''));
    // Without a session, the same requests spread (weighted, 3 equal deployments).
    const loose: string[] = [];
    for (let i = 0; i < 12; i++) loose.push((await gw.chat({ messages })).body.id);
    assert.ok(new Set(await deploymentsOf(loose)).size > 1);
  });

  it('moves only the sessions of a failing deployment, and brings them back once it is healthy', async (t) => {
    const sessions = 30;
    const home = await roundOfSessions(sessions);
    assert.deepEqual(await roundOfSessions(sessions), home, 'every session stays where it is');
    assert.equal(new Set(home).size, 3, 'sessions spread over the deployments');
    const lost = home[0] as string;
    deployments.mock(lost).failNext(100_000, failing);
    const failedAt = performance.now();
    const moved = await roundOfSessions(sessions);
    for (let i = 0; i < sessions; i++) {
      if (home[i] === lost) assert.notEqual(moved[i], lost, `session ${i} still on the failing deployment`);
      else assert.equal(moved[i], home[i], `session ${i} moved though its deployment is healthy`);
    }
    assert.deepEqual(await roundOfSessions(sessions), moved, 'each moved session settles on one deployment');
    deployments.mock(lost).reset();
    let back: (string | null)[] = [];
    while (performance.now() - failedAt < 10_000) {
      await sleep(250);
      back = await roundOfSessions(sessions);
      if (back.every((served, i) => served === home[i])) break;
    }
    t.diagnostic(
      `sessions: ${home.filter((d) => d === lost).length} of ${sessions} were on ${lost}; all back ${(performance.now() - failedAt).toFixed(0)} ms after it first failed (circuit cooldown 1 s)`,
    );
    assert.deepEqual(back, home);
  });
});
