import type { FastifyInstance } from 'fastify';

export interface RouteMethod {
  route: string;
  method: string;
}

/**
 * Every route and method a Fastify instance serves, read from its route tree (Fastify has no other
 * public listing once routes are registered), so a test can check that it covers each one.
 */
export function listRoutes(app: FastifyInstance): RouteMethod[] {
  const parents: string[] = [];
  const routes: RouteMethod[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    const node = (parents[depth - 1] ?? '') + (match[2] ?? '');
    parents[depth] = node;
    // The tree prints a wildcard after a parameter (`/:name/*`) as one node, `/:name*`.
    const route = node.replace(/([^/])\*$/, '$1/*');
    parents.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '')) routes.push({ route, method });
  }
  return routes;
}
