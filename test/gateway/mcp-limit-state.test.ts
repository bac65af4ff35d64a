import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { MCP_HEADERS, rpc } from '../helpers/mcp-http.ts';
import { McpToolServer } from '../helpers/mcp-tool-server.ts';
import { clockAtMinuteStart } from '../helpers/minute-clock.ts';

const LIMITED = { authorization: 'Bearer limited:limited-secret-0123456789' };
const TOKENS = { authorization: 'Bearer tokens:tokens-secret-0123456789' };

/** Contract 5.8 on POST /mcp: an app with limits reads its state on every answer, as on the native API. */
describe('POST /mcp answers carry the app’s limit state', () => {
  const kit = new McpToolServer();
  before(() => kit.start());
  after(() => kit.stop());
  const gw = shareGateway(() => ({
    // Every request of a test falls in one minute's window.
    clock: clockAtMinuteStart(),
    file: {
      mcp: { servers: { kit: { url: kit.url } } },
      apps: [
        { name: 'limited', secret: 'limited-secret-0123456789', mcp: { allow: ['kit/*'] } },
        { name: 'tokens', secret: 'tokens-secret-0123456789', mcp: { allow: ['kit/*'] } },
        { name: APP, secret: SECRET, mcp: { allow: ['kit/*'] } },
      ],
      limits: {
        apps: {
          limited: { requestsPerMinute: 2 },
          tokens: { requestsPerMinute: 10, tokensPerMinute: 5_000 },
        },
      },
    },
  }));
  const post = (body: unknown, headers: Record<string, string>) =>
    gw.gateway.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, ...headers },
      payload: JSON.stringify(body),
    });
  const echo = (text: string, headers: Record<string, string>) =>
    post(rpc('tools/call', { name: 'kit__echo', arguments: { text } }), headers);

  it('counts tool calls down in x-ratelimit-*-requests; listings read the state and take nothing', async () => {
    const listed = await post(rpc('tools/list'), LIMITED);
    assert.equal(listed.statusCode, 200);
    assert.equal(listed.json().result.tools.length, 3);
    assert.equal(listed.headers['x-ratelimit-limit-requests'], '2');
    assert.equal(listed.headers['x-ratelimit-remaining-requests'], '2');
    assert.match(String(listed.headers['x-ratelimit-reset-requests']), /^(\d+s|\d+ms)$/);
    assert.equal(listed.headers['x-ratelimit-limit-tokens'], undefined, 'no token limit, no tokens triple');

    const first = await echo('1', LIMITED);
    assert.equal(first.json().result.content[0].text, 'echo: 1');
    assert.equal(first.headers['x-ratelimit-remaining-requests'], '1');
    assert.ok(first.headers.ratelimit !== undefined, 'the IETF fields, as on the other doors');
    const again = await post(rpc('tools/list'), LIMITED);
    assert.equal(again.headers['x-ratelimit-remaining-requests'], '1', 'the listing took nothing');
    const second = await echo('2', LIMITED);
    assert.equal(second.headers['x-ratelimit-remaining-requests'], '0');
  });

  it('refuses a call past the limit with a tool result naming the limit, and the headers', async () => {
    const before = kit.calls;
    const refused = await echo('3', LIMITED);
    assert.equal(refused.statusCode, 200, 'a tool result: the client session goes on');
    const result = refused.json().result;
    assert.equal(result.isError, true);
    assert.match(
      result.content[0].text,
      /^Refused: app 'limited' reached its requests per minute limit; retry after \d+ s\.$/,
    );
    assert.equal(refused.headers['x-ratelimit-limit-requests'], '2');
    assert.equal(refused.headers['x-ratelimit-remaining-requests'], '0');
    assert.match(String(refused.headers['x-ratelimit-reset-requests']), /^(\d+s|\d+ms)$/);
    assert.equal(refused.headers['retry-after'], undefined, 'a 200 with the retry time in its text');
    assert.equal(kit.calls, before, 'the upstream never saw the refused call');
  });

  it('adds the tokens triple where a token limit is set; a tool call reserves no tokens', async () => {
    const answer = await echo('t', TOKENS);
    assert.equal(answer.headers['x-ratelimit-limit-requests'], '10');
    assert.equal(answer.headers['x-ratelimit-remaining-requests'], '9');
    assert.equal(answer.headers['x-ratelimit-limit-tokens'], '5000');
    assert.equal(answer.headers['x-ratelimit-remaining-tokens'], '5000');
  });

  it('sends no limit headers to an app without limits', async () => {
    for (const answer of [await post(rpc('tools/list'), { authorization: `Bearer ${APP}:${SECRET}` })]) {
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers['x-ratelimit-limit-requests'], undefined);
      assert.equal(answer.headers.ratelimit, undefined);
    }
    const called = await echo('free', { authorization: `Bearer ${APP}:${SECRET}` });
    assert.equal(called.json().result.content[0].text, 'echo: free');
    assert.equal(called.headers['x-ratelimit-limit-requests'], undefined);
  });
});
