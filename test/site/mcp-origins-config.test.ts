import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postMcp, rpc } from '../helpers/mcp-http.ts';
import { startSite } from '../helpers/site-harness.ts';

describe('MCP_ALLOWED_ORIGINS', () => {
  it('lets a configured browser origin call /mcp and still refuses others', async () => {
    const h = await startSite({ env: { MCP_ALLOWED_ORIGINS: 'https://app.partner.example' } });
    const allowed = await postMcp(h.site, rpc('ping'), { origin: 'https://app.partner.example' });
    assert.equal(allowed.statusCode, 200, allowed.body);
    const foreign = await postMcp(h.site, rpc('ping'), { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403);
    await h.close();
  });
});

describe('TRUST_PROXY', () => {
  it('counts newsletter signups per forwarded client only when the proxy is trusted', async () => {
    const signup = (h: Awaited<ReturnType<typeof startSite>>, client: string) =>
      h.site.inject({
        method: 'POST',
        url: '/api/newsletter',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        payload: { email: `someone.${client.replaceAll('.', '')}@example.com` },
        remoteAddress: '127.0.0.1',
      });
    const trusted = await startSite({ env: { TRUST_PROXY: '1', NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1' } });
    assert.equal((await signup(trusted, '198.51.100.1')).statusCode, 200);
    assert.equal(
      (await signup(trusted, '198.51.100.2')).statusCode,
      200,
      'another client behind the proxy has its own limit',
    );
    await trusted.close();
    const untrusted = await startSite({ env: { NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1' } });
    assert.equal((await signup(untrusted, '198.51.100.1')).statusCode, 200);
    assert.equal(
      (await signup(untrusted, '198.51.100.2')).statusCode,
      429,
      'without trust, the proxy is the client',
    );
    await untrusted.close();
  });
});
