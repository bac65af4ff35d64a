import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { type Dispatcher, Pool } from 'undici';

/**
 * The thinnest honest Node.js proxy, the benchmark's floor: node:http in, an undici keep-alive
 * pool out, bodies passed both ways without being read, parsed or buffered. Whatever a gateway
 * costs on top of this is the gateway's own work.
 *
 * The answer goes through undici's dispatch handler straight into the response, chunk by chunk,
 * with back-pressure: `pool.request()` plus `pipe` costs about 15 µs more per request (an async
 * resource, a Readable and a pipe), and the floor should be the cheapest way there is.
 */
const { values } = parseArgs({
  options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } },
});
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

/**
 * Writes the upstream answer into `res` as it arrives; pauses the upstream while `res` is full,
 * and stops it when the client leaves first (a paused call whose client is gone would never get
 * its `drain` and would hold a pooled connection for good).
 */
function intoResponse(res: ServerResponse): Dispatcher.DispatchHandler {
  return {
    // undici tells its handler APIs apart by this method: without it, the handler is taken for
    // the older one (onConnect, onHeaders…).
    onRequestStart(controller) {
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(new Error('the client left'));
      });
    },
    onResponseStart(_controller, statusCode, headers) {
      if (statusCode >= 200) res.writeHead(statusCode, endToEnd(headers));
    },
    onResponseData(controller, chunk) {
      if (!res.write(chunk)) {
        controller.pause();
        res.once('drain', () => controller.resume());
      }
    },
    onResponseEnd() {
      res.end();
    },
    onResponseError() {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    },
  };
}

const server = createServer((req, res) => {
  pool.dispatch(
    { method: req.method as 'POST', path: req.url ?? '/', headers: endToEnd(req.headers), body: req },
    intoResponse(res),
  );
});
server.keepAliveTimeout = 72_000;
server.listen(Number(values.port), '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => process.exit(0));
