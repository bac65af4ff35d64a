import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configFailure } from '../../test/helpers/config-failure.ts';
import { loadConfig } from './load-config.ts';

function yamlFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

const FILE = `
mcp:
  servers:
    search: { url: https://search.example.com/mcp, headers: { Authorization: Bearer sk-search-secret } }
    docs: { url: https://docs.example.com/mcp }
  callTimeoutMs: 5000
apps:
  - { name: agent, secret: agent-secret-0123456789, mcp: { allow: ["docs/*", "search/web"] } }
  - { name: plain, secret: plain-secret-0123456789 }
`;

describe('the MCP gateway in the configuration', () => {
  it('has no server and denies every app by default, with the documented bounds', () => {
    const { mcp } = loadConfig({}, []);
    assert.deepEqual(mcp, {
      callTimeoutMs: 30_000,
      listTimeoutMs: 2_000,
      listCacheMs: 10_000,
      maxBodyBytes: 1_048_576,
      maxArgumentBytes: 262_144,
      maxConcurrentCallsPerApp: 16,
      servers: [],
      allow: {},
    });
  });

  it('reads servers by name with their headers, the bounds, and each allow list', () => {
    const { mcp } = loadConfig({ CONFIG_FILE: yamlFile(FILE) }, []);
    assert.deepEqual(mcp.servers, [
      { name: 'docs', url: 'https://docs.example.com/mcp', headers: {} },
      {
        name: 'search',
        url: 'https://search.example.com/mcp',
        headers: { Authorization: 'Bearer sk-search-secret' },
      },
    ]);
    assert.equal(mcp.callTimeoutMs, 5_000);
    assert.deepEqual(mcp.allow, { agent: ['docs/*', 'search/web'] });
  });

  it('adds MCP_SERVERS to the file, an entry replacing the server of the same name', () => {
    const { mcp } = loadConfig(
      { CONFIG_FILE: yamlFile(FILE), MCP_SERVERS: 'search=http://search:9000/mcp, extra=http://extra/mcp' },
      [],
    );
    assert.deepEqual(
      mcp.servers.map((server) => [server.name, server.url, Object.keys(server.headers).length]),
      [
        ['docs', 'https://docs.example.com/mcp', 0],
        ['extra', 'http://extra/mcp', 0],
        ['search', 'http://search:9000/mcp', 0],
      ],
    );
  });

  it('refuses an allow entry naming a server that is not configured, or not server/tool', () => {
    const unknown = configFailure({
      CONFIG_FILE: yamlFile(`apps:\n  - { name: a, secret: s-0123456789, mcp: { allow: ["nope/*"] } }\n`),
    });
    assert.match(unknown.message, /apps 'a' mcp.allow has 'nope\/\*': no MCP server 'nope' is configured/);
    const shape = configFailure({
      MCP_SERVERS: 'docs=https://docs.example.com/mcp',
      CONFIG_FILE: yamlFile(`apps:\n  - { name: a, secret: s-0123456789, mcp: { allow: ["docs"] } }\n`),
    });
    assert.match(shape.message, /expected 'server\/\*' or 'server\/tool'/);
    const team = configFailure({
      CONFIG_FILE: yamlFile(`teams:\n  - { name: t, mcp: { allow: ["nope/x"] } }\n`),
    });
    assert.match(team.message, /teams 't' mcp.allow has 'nope\/x': no MCP server 'nope' is configured/);
  });

  it('refuses bad MCP_SERVERS entries by position, never echoing a URL', () => {
    assert.match(configFailure({ MCP_SERVERS: 'a_b=http://x/mcp' }).message, /MCP_SERVERS entry 1: the name/);
    assert.match(configFailure({ MCP_SERVERS: 'docs' }).message, /entry 1 \(docs\): expected name=url/);
    const scheme = configFailure({ MCP_SERVERS: 'docs=ftp://user:pw@host/mcp' });
    assert.match(scheme.message, /server 'docs' url must use http or https/);
    assert.doesNotMatch(scheme.message, /pw/);
  });

  it('refuses a server name holding _ (it would make server__tool ambiguous)', () => {
    const error = configFailure({
      CONFIG_FILE: yamlFile('mcp:\n  servers:\n    my_docs: { url: http://x/mcp }\n'),
    });
    assert.match(error.message, /mcp.servers/);
  });
});
