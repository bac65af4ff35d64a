import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildServerCard, reverseDomainName } from './server-card.ts';

describe('reverseDomainName', () => {
  const cases: [string, string][] = [
    ['https://www.example.com', 'com.example.www'],
    ['https://example.com:8443/base', 'com.example'],
    ['http://localhost:8788', 'localhost'],
    ['http://127.0.0.1:8788', '127.0.0.1'],
    ['http://[::1]:8788', '[::1]'],
  ];
  for (const [url, name] of cases) it(`${url} -> ${name}`, () => assert.equal(reverseDomainName(url), name));
});

describe('buildServerCard', () => {
  it('names the server in reverse-DNS form and describes its one streamable HTTP remote', () => {
    const card = buildServerCard({
      publicSiteUrl: 'https://www.example.com',
      mcpUrl: 'https://www.example.com/mcp',
      server: {
        serverInfo: { name: 'site', version: '1.0.0', title: 'Example' },
        capabilities: { tools: { listChanged: false } },
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
        protocolVersions: ['2025-11-25', '2025-06-18'],
      },
    });
    assert.equal(card.name, 'com.example.www/site');
    assert.equal(card.title, 'Example');
    assert.equal('description' in card, false);
    assert.deepEqual(card.remotes, [
      {
        type: 'streamable-http',
        url: 'https://www.example.com/mcp',
        supportedProtocolVersions: ['2025-11-25', '2025-06-18'],
        authentication: { required: false, schemes: [] },
      },
    ]);
  });

  it("refuses a description outside the card schema's 1-100 characters rather than serve an invalid card", () => {
    const cardWith = (description: string) =>
      buildServerCard({
        publicSiteUrl: 'https://www.example.com',
        mcpUrl: 'https://www.example.com/mcp',
        server: {
          serverInfo: { name: 'site', version: '1.0.0', description },
          capabilities: {},
          tools: [],
          protocolVersions: ['2025-11-25'],
        },
      });
    assert.equal(cardWith('x'.repeat(100)).description, 'x'.repeat(100));
    assert.throws(() => cardWith('x'.repeat(101)), /101 characters; the card allows 1-100/);
    assert.throws(() => cardWith(''), /0 characters/);
  });
});
