import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { ChatRequest, ChatResponse, SHARED_SCHEMAS } from '../src/gateway/doors/native/native-schemas.ts';
import { createBaseApp } from '../src/platform/fastify-base.ts';
import { createLogger } from '../src/platform/logger.ts';

/**
 * One server of `bench/framework-cost.ts`: POST /v1/chat validated against the gateway's own
 * ChatRequest schema and answered with a fixed ChatResponse, no upstream, no gateway logic. What
 * differs between the kinds is only the HTTP layer around that work:
 *
 * - `node`: node:http, the body read and parsed by hand, Ajv's compiled check, JSON.stringify;
 * - `fastify`: a bare Fastify instance, the schemas as route schemas (Fastify's validator and
 *   fast-json-stringify serializer), no hooks, no logger;
 * - `base`: the gateway's own Fastify base (createBaseApp: request ids, the error envelope, the
 *   hooks every request runs, the completion log line at the given level).
 */
const { values } = parseArgs({
  options: { kind: { type: 'string' }, 'log-level': { type: 'string', default: 'warn' } },
});

const ANSWER = {
  id: 'chat_0190f0c0e7b87a3c9d2e4f6a8b0c1d2e',
  provider: 'provider-a',
  model: 'gpt-4o-mini',
  message: { role: 'assistant', content: 'The capital of France is Paris.' },
  finishReason: 'stop',
  usage: { tokensIn: 14, tokensOut: 8, estimatedCost: 0.0000069, estimated: false },
  latencyMs: 1.234,
};

async function listen(app: FastifyInstance): Promise<number> {
  for (const schema of [...SHARED_SCHEMAS, ChatResponse]) app.addSchema(schema);
  app.post(
    '/v1/chat',
    { schema: { body: ChatRequest, response: { 200: ChatResponse } } },
    async () => ANSWER,
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

async function listenNode(): Promise<number> {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false });
  for (const schema of SHARED_SCHEMAS) ajv.addSchema(schema);
  const check = ajv.compile(ChatRequest);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (!check(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(check.errors));
        return;
      }
      const text = JSON.stringify(ANSWER);
      res
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        })
        .end(text);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

const port =
  values.kind === 'node'
    ? await listenNode()
    : values.kind === 'fastify'
      ? await listen(Fastify() as unknown as FastifyInstance)
      : values.kind === 'base'
        ? await listen(
            createBaseApp({ logger: createLogger({ level: values['log-level'] }), maxBodyBytes: 1 << 20 }),
          )
        : (() => {
            throw new Error('--kind=node|fastify|base');
          })();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => process.exit(0));
