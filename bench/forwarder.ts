import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

/**
 * The thinnest honest Node.js proxy, the benchmark's floor: node:http in, an undici keep-alive
 * pool out, bodies piped both ways without being read, parsed or buffered. Whatever a gateway
 * costs on top of this is the gateway's own work.
 */
const { values } = parseArgs({ options: { upstream: { type: 'string' } } });
if (values.upstream === undefined) throw new Error('--upstream=<origin> is required');

const pool = new Pool(values.upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });

// Hop-by-hop headers belong to one connection, and undici refuses to send them.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

const server = createServer((req, res) => {
  pool
    .request({
      method: req.method as 'POST',
      path: req.url ?? '/',
      headers: endToEnd(req.headers),
      body: req,
    })
    .then(
      (upstream) => {
        res.writeHead(upstream.statusCode, endToEnd(upstream.headers));
        upstream.body.pipe(res);
        upstream.body.on('error', () => res.destroy());
      },
      () => {
        res.writeHead(502).end();
      },
    );
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => process.exit(0));
