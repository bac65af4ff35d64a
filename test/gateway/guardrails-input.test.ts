import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import {
  DOT_ENV,
  DOT_ENV_MASKED,
  findSecret,
  SECRETS,
  STRICT,
  shareGuardedGateway,
} from '../helpers/guarded-gateway.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';

/**
 * The input phase (CONTRACT 6.6) on every door: a .env file an agent read, sent as a prompt and
 * as a tool result, reaches the upstream masked (or the request is refused with no upstream
 * call), whatever the door; the same-vendor lane stays byte for byte when nothing matched; the
 * values appear in no ledger row, log line, metric or error body.
 */
describe('input guards', () => {
  const shared = shareGuardedGateway();
  const gw = shared.gw;

  const lastBody = (): unknown => shared.openai.requests.at(-1)?.body ?? {};
  /** Every request body the two upstreams received, as text. */
  const upstreamText = () =>
    [...shared.openai.requests, ...shared.anthropic.requests]
      .map((request) => request.raw.toString('utf8'))
      .join('\n');

  it('masks a native prompt and system prompt before they go upstream', async () => {
    const reply = await gw.chat({
      provider: 'provider-a',
      messages: [
        { role: 'system', content: `Deploy with ${SECRETS.aws}` },
        { role: 'user', content: `Here is my .env:\n${DOT_ENV}` },
      ],
    });
    assert.equal(reply.status, 200, reply.text);
    const sent = lastBody() as { messages: { content: string }[] };
    assert.equal(sent.messages[0]?.content, 'Deploy with [REDACTED:AWS_ACCESS_KEY]');
    assert.equal(sent.messages[1]?.content, `Here is my .env:\n${DOT_ENV_MASKED}`);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.guardrails, 'mask-secrets:input:mask,mask-pii:input:mask');
  });

  it("masks an OpenAI tool message (the file an agent read) and a tool call's arguments", async () => {
    const reply = await gw.post('/v1/chat/completions', {
      model: 'provider-a/gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Read .env' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read', arguments: `{"path":".env","hint":"${SECRETS.email}"}` },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: DOT_ENV },
      ],
      tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
    });
    assert.equal(reply.status, 200, reply.text);
    const sent = lastBody() as {
      messages: { content: unknown; tool_calls?: { function: { arguments: string } }[] }[];
    };
    assert.equal(sent.messages[2]?.content, DOT_ENV_MASKED);
    assert.match(sent.messages[1]?.tool_calls?.[0]?.function.arguments ?? '', /\[REDACTED:EMAIL\]/);
  });

  it('masks an Anthropic tool_result on the same-vendor lane, the rest of the body as the client wrote it', async () => {
    const body = `{"model":"claude-sonnet-4-5","max_tokens":64,"system":"Careful with ${SECRETS.card}.","messages":[{"role":"user","content":"Read .env"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":".env"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":${JSON.stringify(DOT_ENV)}}]}]}`;
    const response = await postMessages(gw, body, 'context-management-2025-06-27');
    assert.equal(response.statusCode, 200, response.body);
    const sent = JSON.parse(shared.anthropic.requests.at(-1)?.raw.toString('utf8') ?? '{}');
    assert.equal(sent.system, 'Careful with [REDACTED:CARD].');
    assert.equal(sent.messages[2].content[0].content, DOT_ENV_MASKED);
    assert.deepEqual(sent.messages[1], JSON.parse(body).messages[1]);
    assert.equal(
      shared.anthropic.requests.at(-1)?.headers['anthropic-beta'],
      'context-management-2025-06-27',
    );
  });

  it('keeps the same-vendor lane byte for byte when the guards find nothing, look-alikes included', async () => {
    // A card number failing Luhn, an IBAN failing mod 97, a ZIP code, a short AKIA string: all pass.
    const prose = 'Order 4111 1111 1111 1112, IBAN GB82WEST12345698765433, ZIP 94105-1234, id AKIA1234';
    const body = `{"model" : "claude-sonnet-4-5","max_tokens":64, "temperature":1.0,"messages":[{"role":"user","content":"${prose}\\u0021"}]}`;
    const response = await postMessages(gw, body, '');
    assert.equal(response.statusCode, 200, response.body);
    const raw = shared.anthropic.requests.at(-1)?.raw.toString('utf8');
    assert.equal(raw, body);
  });

  it("masks a Responses function_call_output and the request's instructions", async () => {
    const reply = await gw.post('/v1/responses', {
      model: 'provider-a/gpt-4o-mini',
      instructions: `Owner SSN ${SECRETS.ssn}`,
      input: [
        { type: 'message', role: 'user', content: 'Read .env' },
        { type: 'function_call', call_id: 'call_9', name: 'read', arguments: '{"path":".env"}' },
        { type: 'function_call_output', call_id: 'call_9', output: DOT_ENV },
      ],
      tools: [{ type: 'function', name: 'read', parameters: { type: 'object' } }],
    });
    assert.equal(reply.status, 200, reply.text);
    const sent = shared.openai.requests.at(-1)?.raw.toString('utf8') ?? '';
    assert.equal(findSecret(sent), undefined);
    assert.ok(sent.includes('[REDACTED:US_SSN]') && sent.includes('[REDACTED:GITHUB_TOKEN]'), sent);
  });

  it('masks embeddings input', async () => {
    const reply = await gw.post('/v1/embeddings', {
      model: 'provider-a/text-embedding-3-small',
      input: [`mail ${SECRETS.email}`],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual((lastBody() as { input: string[] }).input, ['mail [REDACTED:EMAIL]']);
  });

  const blocked = [
    ['native', '/v1/chat', { provider: 'provider-a', messages: [{ role: 'user', content: DOT_ENV }] }],
    [
      'OpenAI',
      '/v1/chat/completions',
      {
        model: 'provider-a/gpt-4o-mini',
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: DOT_ENV },
        ],
      },
    ],
    [
      'Responses',
      '/v1/responses',
      {
        model: 'provider-a/gpt-4o-mini',
        input: [
          { type: 'function_call', call_id: 'c', name: 'read', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c', output: DOT_ENV },
        ],
      },
    ],
    [
      'Anthropic',
      '/v1/messages',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 16,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: DOT_ENV }] }],
      },
    ],
  ] as const;
  for (const [door, path, body] of blocked) {
    it(`blocks on the ${door} door: its 400 naming the guard, no upstream call, one ledger row`, async () => {
      const before = shared.openai.requests.length + shared.anthropic.requests.length;
      const reply = await gw.post(path, body, { headers: { ...STRICT, 'anthropic-version': '2023-06-01' } });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(shared.openai.requests.length + shared.anthropic.requests.length, before);
      if (door === 'Anthropic') {
        assert.equal(reply.body.error.type, 'invalid_request_error');
        assert.match(reply.body.error.message, /^guardrail_blocked: the guard 'block-secrets'/);
      } else {
        assert.equal(reply.body.error.code, 'guardrail_blocked');
        assert.match(reply.body.error.message, /'block-secrets'/);
      }
      assert.equal(findSecret(reply.text), undefined);
      const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
      assert.equal(row.status, 400);
      assert.equal(row.errorCode, 'guardrail_blocked');
      assert.equal(row.costUsd, 0);
      assert.equal(row.app, 'strict');
      assert.equal(row.guardrails, 'block-secrets:input:block');
    });
  }

  it('applies the guards attached to a route (a log guard: ledger and metrics only)', async () => {
    const reply = await gw.chat({
      task: 'guarded',
      messages: [{ role: 'user', content: 'Project Falcon ships' }],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(
      (lastBody() as { messages: { content: string }[] }).messages[0]?.content,
      'Project Falcon ships',
    );
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.guardrails, 'codenames:input:log');
  });

  it('leaves no matched value in the ledger, the logs or /metrics, and counts the actions', async () => {
    await gw.app.recorder.flush();
    const rows = await gw.app.storage.usage.readRecords({ limit: 1000 });
    assert.equal(findSecret(JSON.stringify(rows)), undefined);
    assert.equal(findSecret(shared.logs.join('')), undefined);
    const metrics = await gw.get('/metrics');
    assert.equal(findSecret(metrics.text), undefined);
    assert.match(
      metrics.text,
      /gateway_guardrail_actions_total\{guard="block-secrets",phase="input",action="block"\} 4/,
    );
    assert.match(
      metrics.text,
      /gateway_guardrail_actions_total\{guard="mask-secrets",phase="input",action="mask"\} \d/,
    );
    assert.equal(findSecret(upstreamText()), undefined);
  });
});
