import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { APP, AUTH, shareGateway } from '../helpers/gateway-harness.ts';
import { parsePrometheusText, sumOf } from '../helpers/prometheus-text.ts';

const messages = [{ role: 'user', content: 'label me' }];
const invented = () => `made-up-${randomBytes(6).toString('hex')}`;
const PROMTOOL = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

describe('/metrics label values a client chooses', () => {
  const gw = shareGateway({
    file: {
      routing: {
        chat: [{ provider: 'provider-a', model: 'chat' }],
        tasks: { summarise: [{ provider: 'provider-b' }] },
      },
      prices: { 'simulated-chat': { inputPerMTok: 3, outputPerMTok: 15 } },
    },
  });
  const scrape = async () => (await gw.get('/metrics', { auth: false })).text;
  /** The gateway's own lines (the process's, GC kinds among them, come as the runtime has them). */
  const gatewayLines = (text: string) =>
    text.split('\n').filter((line) => /^(# [A-Z]+ )?(gateway_|gen_ai_)/.test(line));

  it('counts invented model names as other, configured ones by name', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await gw.chat({ messages, model: invented() })).status, 200);
    assert.equal((await gw.chat({ messages, model: 'chat' })).status, 200);
    const samples = parsePrometheusText(await scrape());
    const models = new Set(
      samples.filter((s) => s.name === 'gateway_requests_total').map((s) => s.labels.model),
    );
    assert.ok(models.has('other'), [...models].join());
    assert.ok(![...models].some((model) => model?.includes('made-up')), [...models].join());
    assert.ok(models.has('simulated-chat'), 'the configured model, as the simulated slot answers it');
    assert.equal(sumOf(samples, 'gateway_requests_total', { model: 'other' }), 20);
  });

  it('keeps /metrics the same size however many names are invented', async () => {
    const sendInvented = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const name = invented();
        const sent = await Promise.all([
          gw.chat({ messages, model: name, task: name }),
          gw.post('/v1/chat/completions', { model: name, messages }),
          gw.post(
            '/v1/messages',
            { model: name, max_tokens: 5, messages },
            { headers: { 'anthropic-version': '2023-06-01' } },
          ),
          gw.embed({ input: 'x', model: name }),
        ]);
        for (const res of sent) assert.equal(res.status, 200, res.text);
      }
    };
    await sendInvented(20);
    const beforeText = await scrape();
    const before = gatewayLines(beforeText).length;
    await sendInvented(400);
    const afterText = await scrape();
    const after = gatewayLines(afterText).length;
    const names = (text: string) => new Set(gatewayLines(text).map((line) => line.replace(/ [^ ]+$/, '')));
    const old = names(beforeText);
    assert.equal(
      after,
      before,
      `${before} lines before, ${after} after: ${[...names(afterText)].filter((n) => !old.has(n)).join('\n')}`,
    );
  });

  it('counts a request refused with 400 after authentication under its app', async () => {
    const count = async () => {
      const samples = parsePrometheusText(await scrape());
      return {
        native: sumOf(samples, 'gateway_requests_total', {
          app: APP,
          status: '400',
          front_door: 'native',
          operation: 'chat',
        }),
        openai: sumOf(samples, 'gateway_requests_total', {
          app: APP,
          status: '400',
          front_door: 'openai',
          operation: 'chat',
        }),
        invalidJson: sumOf(samples, 'gateway_requests_total', { app: APP, status: '400', operation: 'json' }),
      };
    };
    const before = await count();
    assert.equal((await gw.chat({ messages: [] })).status, 400);
    assert.equal((await gw.post('/v1/chat/completions', { model: 'chat', messages: 'no' })).status, 400);
    const broken = await gw.gateway.inject({
      method: 'POST',
      url: '/v1/json',
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload: '{"messages": [',
    });
    assert.equal(broken.statusCode, 400);
    const unauthenticated = await gw.post('/v1/chat', { messages: [] }, { auth: false });
    assert.equal(unauthenticated.status, 401);
    const after = await count();
    assert.deepEqual(after, {
      native: before.native + 1,
      openai: before.openai + 1,
      invalidJson: before.invalidJson + 1,
    });
  });

  it('labels the GenAI duration histogram with gen_ai_request_model', async () => {
    await gw.chat({ messages, model: 'chat' });
    const samples = parsePrometheusText(await scrape());
    const durations = samples.filter((s) => s.name === 'gen_ai_client_operation_duration_seconds_count');
    assert.ok(durations.length > 0);
    // The model the client asked for (contract 6.1), beside the one the upstream answered with.
    assert.ok(
      durations.some((s) => s.labels.gen_ai_request_model === 'chat' && s.labels.model === 'simulated-chat'),
      JSON.stringify(durations),
    );
    assert.ok(durations.every((s) => s.labels.gen_ai_request_model !== undefined));
  });

  it('splits requests by route: a configured task, default, slot, and other for an unknown task', async () => {
    const routes = async () => {
      const samples = parsePrometheusText(await scrape());
      const count = (route: string) => sumOf(samples, 'gateway_requests_total', { route, app: APP });
      return {
        task: count('summarise'),
        default: count('default'),
        slot: count('slot'),
        other: count('other'),
      };
    };
    const before = await routes();
    assert.equal((await gw.chat({ messages, task: 'summarise' })).status, 200);
    assert.equal((await gw.chat({ messages })).status, 200);
    assert.equal((await gw.chat({ messages, provider: 'provider-c' })).status, 200);
    assert.equal((await gw.post('/v1/chat/completions', { model: 'provider-b/chat', messages })).status, 200);
    assert.equal((await gw.chat({ messages, task: invented() })).status, 200);
    assert.equal((await gw.post('/v1/chat/completions', { model: 'summarise', messages })).status, 200);
    const after = await routes();
    assert.deepEqual(after, {
      task: before.task + 2,
      default: before.default + 1,
      slot: before.slot + 2,
      other: before.other + 1,
    });
    const samples = parsePrometheusText(await scrape());
    const asked = sumOf(samples, 'gateway_requests_total', { route: 'slot', gen_ai_request_model: 'chat' });
    assert.ok(asked >= 1, 'a pinned slot with a configured model is labelled with the model asked for');
  });

  it('passes promtool check metrics', {
    skip: PROMTOOL ? false : 'promtool is not installed (Debian: apt-get install prometheus)',
  }, async () => {
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: await scrape(), encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
    assert.equal(`${checked.stdout}${checked.stderr}`.trim(), '');
  });
});
