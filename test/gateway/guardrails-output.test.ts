import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postMessages } from '../helpers/anthropic-door-client.ts';
import {
  DOT_ENV,
  DOT_ENV_MASKED,
  findSecret,
  SECRETS,
  shareGuardedGateway,
  TIGHT,
} from '../helpers/guarded-gateway.ts';
import { onlyLedgerRow } from '../helpers/ledger-row.ts';
import { parseSse } from '../helpers/parse-sse.ts';

const PEM_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n'.repeat(30);
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}-----END RSA PRIVATE KEY-----`;

/**
 * The output phase (CONTRACT 6.6): an upstream answer carrying the .env file, whole or streamed
 * in 7-character fragments (every secret split across chunks), reaches the client masked on every
 * door; a private key is cut from its BEGIN line; a blocking guard ends a stream with the door's
 * error event after its first byte, and a whole answer with the door's 400.
 */
describe('output guards', () => {
  const shared = shareGuardedGateway();
  const gw = shared.gw;
  const answer = `Sure, here it is:\n${DOT_ENV}\nAnything else?`;
  const masked = `Sure, here it is:\n${DOT_ENV_MASKED}\nAnything else?`;

  it('masks a native stream whose secrets are split across chunks, and its done event', async () => {
    shared.openai.replyNext({ text: answer, fragmentSize: 7 });
    const reply = await gw.stream({
      provider: 'provider-a',
      messages: [{ role: 'user', content: 'show .env' }],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(findSecret(reply.text), undefined, reply.text);
    const deltas = reply.events
      .filter((event) => event.event === 'delta')
      .map((event) => (event.data as any).content);
    assert.equal(deltas.join(''), masked);
    const done = reply.events.at(-1)?.data as any;
    assert.equal(done.message.content, masked);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.guardrails, 'mask-secrets:output:mask,mask-pii:output:mask');
  });

  it('masks a whole answer on the OpenAI door and a streamed one', async () => {
    shared.openai.replyNext({ text: answer });
    const whole = await gw.post('/v1/chat/completions', {
      model: 'provider-a/gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(whole.status, 200, whole.text);
    assert.equal(whole.body.choices[0].message.content, masked);
    shared.openai.replyNext({ text: answer, fragmentSize: 5 });
    const streamed = await gw.post('/v1/chat/completions', {
      model: 'provider-a/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(findSecret(streamed.text), undefined);
    const text = streamed.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '')
      .join('');
    assert.equal(text, masked);
  });

  it("masks a tool call's arguments in a stream", async () => {
    shared.openai.replyNext({
      toolCalls: [{ name: 'send', arguments: { to: SECRETS.email, key: SECRETS.aws } }],
    });
    const reply = await gw.stream({
      provider: 'provider-a',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ name: 'send', parameters: { type: 'object' } }],
    });
    assert.equal(findSecret(reply.text), undefined, reply.text);
    const call = reply.events.find((event) => event.event === 'tool_call')?.data as any;
    assert.deepEqual(JSON.parse(call.arguments), {
      to: '[REDACTED:EMAIL]',
      key: '[REDACTED:AWS_ACCESS_KEY]',
    });
  });

  it('masks the same-vendor lane, streamed and whole, where output guards apply', async () => {
    shared.anthropic.replyNext({ text: answer, fragmentSize: 7 });
    const body =
      '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}';
    const streamed = await postMessages(gw, body, '');
    assert.equal(streamed.statusCode, 200, streamed.body);
    assert.equal(findSecret(streamed.body), undefined, streamed.body);
    const text = parseSse(streamed.body)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => (event.data as any).delta.text ?? '')
      .join('');
    assert.equal(text, masked);
    assert.ok(parseSse(streamed.body).some((event) => event.event === 'message_stop'));
    shared.anthropic.replyNext({ text: answer });
    const whole = await postMessages(gw, body.replace('"stream":true', '"stream":false'), '');
    assert.equal(JSON.parse(whole.body).content[0].text, masked);
  });

  it("masks the Gemini door on a gemini slot, streamed and whole: its lane cannot read Google's chunks, so an output guard moves it to the translated path", async () => {
    const path = '/v1beta/models/provider-b/gemini-2.5-flash';
    const body = { contents: [{ role: 'user', parts: [{ text: 'show .env' }] }] };
    shared.gemini.replyNext({ text: answer, fragmentSize: 7 });
    const streamed = await gw.post(`${path}:streamGenerateContent?alt=sse`, body);
    assert.equal(streamed.status, 200, streamed.text);
    assert.equal(findSecret(streamed.text), undefined, streamed.text);
    const text = streamed.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).candidates?.[0]?.content?.parts?.[0]?.text ?? '')
      .join('');
    assert.equal(text, masked);
    shared.gemini.replyNext({ text: answer });
    const whole = await gw.post(`${path}:generateContent`, body);
    assert.equal(whole.status, 200, whole.text);
    assert.equal(findSecret(whole.text), undefined, whole.text);
    assert.equal(whole.body.candidates[0].content.parts[0].text, masked);
  });

  it('cuts a private key from its BEGIN line on in a stream, its END past the window', async () => {
    shared.openai.replyNext({ text: `The key:\n${PEM}\nKeep it safe.`, fragmentSize: 9 });
    const reply = await gw.stream({ provider: 'provider-a', messages: [{ role: 'user', content: 'x' }] });
    const text = reply.events
      .filter((event) => event.event === 'delta')
      .map((event) => (event.data as any).content)
      .join('');
    assert.equal(text, 'The key:\n[REDACTED:PRIVATE_KEY]\nKeep it safe.');
    assert.equal(reply.text.includes('MIIEowIBAAKCAQEA'), false);
  });

  it('blocks a stream after its first byte with the error event, and the row says so', async () => {
    shared.openai.replyNext({
      text: `${'Plain words here. '.repeat(30)}then ${SECRETS.github} and more`,
      fragmentSize: 6,
    });
    const reply = await gw.stream(
      { provider: 'provider-a', messages: [{ role: 'user', content: 'x' }] },
      { headers: TIGHT },
    );
    assert.equal(reply.status, 200);
    assert.ok(
      reply.events.some((event) => event.event === 'delta'),
      'text went out before the block',
    );
    const last = reply.events.at(-1);
    assert.equal(last?.event, 'error');
    assert.equal((last?.data as any)?.error.code, 'guardrail_blocked');
    assert.equal(findSecret(reply.text), undefined);
    const row = await onlyLedgerRow(gw, reply.headers['x-request-id'] as string);
    assert.equal(row.status, 400);
    assert.equal(row.errorCode, 'guardrail_blocked');
    assert.equal(row.guardrails, 'block-answers:output:block');
    assert.ok(row.costUsd > 0, 'the upstream answered: its cost stays');
  });

  it("blocks a stream on the Anthropic door's same-vendor lane with Anthropic's error event", async () => {
    shared.anthropic.replyNext({ text: `${'Words. '.repeat(60)}${SECRETS.aws} end`, fragmentSize: 7 });
    const body =
      '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}';
    const reply = await postMessages(gw, body, '', { 'x-api-key': `tight:${TIGHT['x-gateway-secret']}` });
    const events = parseSse(reply.body);
    const error = events.at(-1);
    assert.equal(error?.event, 'error');
    assert.equal((error?.data as any)?.error.type, 'invalid_request_error');
    assert.match((error?.data as any)?.error.message, /^guardrail_blocked: the guard 'block-answers'/);
    assert.equal(findSecret(reply.body), undefined);
  });

  it("blocks a whole answer with the door's 400", async () => {
    shared.openai.replyNext({ text: `key ${SECRETS.aws}` });
    const reply = await gw.post(
      '/v1/chat/completions',
      { model: 'provider-a/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] },
      { headers: TIGHT },
    );
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.body.error.code, 'guardrail_blocked');
    assert.equal(findSecret(reply.text), undefined);
  });

  it('leaves no matched value in the ledger, the logs or /metrics', async () => {
    await gw.app.recorder.flush();
    assert.equal(
      findSecret(JSON.stringify(await gw.app.storage.usage.readRecords({ limit: 1000 }))),
      undefined,
    );
    assert.equal(findSecret(shared.logs.join('')), undefined);
    const metrics = await gw.get('/metrics');
    assert.equal(findSecret(metrics.text), undefined);
    assert.match(
      metrics.text,
      /gateway_guardrail_actions_total\{guard="block-answers",phase="output",action="block"\} 3/,
    );
  });
});
