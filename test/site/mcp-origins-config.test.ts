import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postMcp, rpc } from '../helpers/mcp-http.ts';
import { type SiteHarness, startSite } from '../helpers/site-harness.ts';

describe('MCP_ALLOWED_ORIGINS', () => {
  it('lets a configured browser origin call /mcp and still refuses others', async (t) => {
    const h = await startSite(t, { env: { MCP_ALLOWED_ORIGINS: 'https://app.partner.example' } });
    const allowed = await postMcp(h.site, rpc('ping'), { origin: 'https://app.partner.example' });
    assert.equal(allowed.statusCode, 200, allowed.body);
    const foreign = await postMcp(h.site, rpc('ping'), { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403);
  });
});

describe('TRUST_PROXY', () => {
  it('counts newsletter signups per forwarded client only when the proxy is trusted', async (t) => {
    // Raw inject(): the test is about the client address and the forwarded header.
    const signup = (h: SiteHarness, client: string) =>
      h.site.inject({
        method: 'POST',
        url: '/api/newsletter',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        payload: { email: `someone.${client.replaceAll('.', '')}@example.com` },
        remoteAddress: '127.0.0.1',
      });
    const trusted = await startSite(t, { env: { TRUST_PROXY: '1', NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1' } });
    assert.equal((await signup(trusted, '198.51.100.1')).statusCode, 200);
    assert.equal(
      (await signup(trusted, '198.51.100.2')).statusCode,
      200,
      'another client behind the proxy has its own limit',
    );
    const untrusted = await startSite(t, { env: { NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1' } });
    assert.equal((await signup(untrusted, '198.51.100.1')).statusCode, 200);
    assert.equal(
      (await signup(untrusted, '198.51.100.2')).statusCode,
      429,
      'without trust, the proxy is the client',
    );
  });
});
