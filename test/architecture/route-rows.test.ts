import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INFERENCE_ROUTES, ROUTES_WITHOUT_ROW } from '../../src/gateway/http/count-requests-without-run.ts';
import { createGateway, type Harness } from '../helpers/gateway-harness.ts';

/**
 * The route rows of http/count-requests-without-run.ts cannot be forgotten: a request refused
 * before its run (a body that is not JSON, too large, failing the schema) is counted under its
 * door and operation only when its route has a row, so a door's new POST route without one would
 * silently undercount refusals. Every POST route of the built gateway has a row, or is declared as
 * having none; and every row names a route the gateway has.
 */

/** The routes of Fastify's route tree as printed with `commonPrefix: false`, each a full path with its methods. */
function readRouteTree(printed: string): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  const prefixes: string[] = [];
  for (const line of printed.split('\n')) {
    const branch = line.search(/[├└]── /);
    if (branch < 0) continue;
    const depth = branch / 4;
    const node = /^(.*?)(?: \(([^)]*)\))?$/.exec(line.slice(branch + 4)) as RegExpExecArray;
    const path = (depth === 0 ? '' : (prefixes[depth - 1] ?? '')) + (node[1] as string);
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    if (node[2] !== undefined) routes.set(path, node[2].split(', '));
  }
  return routes;
}

/** POST routes with no row and not declared without one. */
const rowless = (posts: readonly string[]) =>
  posts.filter((path) => !(path in INFERENCE_ROUTES) && !ROUTES_WITHOUT_ROW.includes(path));

/** Rows and declarations that name no POST route. */
const stale = (posts: readonly string[]) =>
  [...Object.keys(INFERENCE_ROUTES), ...ROUTES_WITHOUT_ROW].filter((path) => !posts.includes(path));

describe('route rows of the requests counted without a run', () => {
  let gw: Harness;
  before(async () => {
    gw = await createGateway({ env: { METRICS_ENABLED: 'true' } });
  });
  after(() => gw.close());

  it('reads the route tree', () => {
    const tree = readRouteTree(
      '├── /v1/chat (POST)\n│   └── /completions (POST)\n└── /v1/embed (POST)\n    └── dings (POST)\n',
    );
    assert.deepEqual([...tree.keys()], ['/v1/chat', '/v1/chat/completions', '/v1/embed', '/v1/embeddings']);
  });

  it('every POST route has a row or is declared without one, and every row is a route', () => {
    const posts = [...readRouteTree(gw.gateway.printRoutes({ commonPrefix: false, method: 'POST' })).keys()];
    assert.ok(posts.includes('/v1/chat/completions'), posts.join(', '));
    assert.deepEqual(rowless(posts), [], 'add a row to INFERENCE_ROUTES or ROUTES_WITHOUT_ROW');
    assert.deepEqual(stale(posts), []);
    // A sixth door's route added without a row is named; a row whose route went is named too.
    const withNewDoor = [...posts.filter((path) => path !== '/v1/embeddings'), '/v1/new-door/chat'];
    assert.deepEqual(rowless(withNewDoor), ['/v1/new-door/chat']);
    assert.deepEqual(stale(withNewDoor), ['/v1/embeddings']);
  });
});
