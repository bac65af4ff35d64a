import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkToolAllowList,
  compileAllowList,
  DENY_ALL,
  gatewayToolName,
  intersectAllowances,
  offeredTools,
  splitToolName,
} from './mcp-tools.ts';

describe('MCP tool names', () => {
  it('join a server and a tool with __ and split at the first __', () => {
    assert.equal(gatewayToolName('docs', 'read_page'), 'docs__read_page');
    assert.deepEqual(splitToolName('docs__read_page'), { server: 'docs', tool: 'read_page' });
    assert.deepEqual(splitToolName('docs__a__b'), { server: 'docs', tool: 'a__b' });
    for (const name of ['docs', '__tool', 'docs__', '']) assert.equal(splitToolName(name), undefined, name);
  });
});

describe('allow lists', () => {
  it('deny by default, allow a whole server with server/* and one tool with server/tool', () => {
    assert.equal(DENY_ALL.allows('docs', 'x'), false);
    assert.equal(compileAllowList([]).allows('docs', 'x'), false);
    const allowance = compileAllowList(['docs/*', 'search/web']);
    const allows = allowance.allows;
    assert.deepEqual([...allowance.servers].sort(), ['docs', 'search']);
    assert.equal(allows('docs', 'anything'), true);
    assert.equal(allows('search', 'web'), true);
    assert.equal(allows('search', 'images'), false);
    assert.equal(allows('other', 'web'), false);
  });

  it('offer the allowed tools renamed, in name order whatever the upstreams order', () => {
    const lists = [
      { server: 'search', tools: [{ name: 'web' }, { name: 'images' }] },
      { server: 'docs', tools: [{ name: 'z' }, { name: 'a', description: 'kept' }] },
    ];
    const offered = offeredTools(lists, compileAllowList(['docs/*', 'search/web']));
    assert.deepEqual(offered, [
      { name: 'docs__a', description: 'kept' },
      { name: 'docs__z' },
      { name: 'search__web' },
    ]);
    const reversed = lists.map((l) => ({ ...l, tools: [...l.tools].reverse() })).reverse();
    assert.deepEqual(offeredTools(reversed, compileAllowList(['docs/*', 'search/web'])), offered);
  });
});

describe("an app's list bounded by its team's", () => {
  it('allows what both allow, and asks only the servers both name', () => {
    const both = intersectAllowances(
      compileAllowList(['docs/*', 'search/web', 'mail/send']),
      compileAllowList(['docs/read', 'search/*']),
    );
    assert.deepEqual([...both.servers].sort(), ['docs', 'search']);
    assert.equal(both.allows('docs', 'read'), true);
    assert.equal(both.allows('docs', 'write'), false);
    assert.equal(both.allows('search', 'web'), true);
    assert.equal(both.allows('search', 'news'), false);
    assert.equal(both.allows('mail', 'send'), false);
    assert.equal(intersectAllowances(compileAllowList(['docs/*']), DENY_ALL), DENY_ALL);
  });

  it('checks entries sent through the admin API', () => {
    assert.equal(checkToolAllowList(['docs/*', 'search/web_search']), undefined);
    assert.equal(checkToolAllowList(['docs/section/page']), undefined, 'a tool part may hold a slash');
    for (const bad of ['docs', '/x', 'docs/'])
      assert.match(checkToolAllowList(['docs/*', bad]) ?? '', /^item 1: /);
  });
});
