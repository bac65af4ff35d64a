import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type Application, buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/platform/logger.ts';

export const RAW_APP = 'raw-app';
export const RAW_SECRET = 'raw-secret-0123456789abcdef';

export interface ListeningApp {
  app: Application;
  gatewayPort: number;
  sitePort: number;
  close(): Promise<void>;
}

/** Both surfaces, in memory, listening on loopback ports: for what `inject` cannot show. */
export async function listenBoth(env: Record<string, string> = {}): Promise<ListeningApp> {
  const config = loadConfig(
    {
      DATA_DIR: ':memory:',
      LOG_LEVEL: 'silent',
      GATEWAY_APPS: `${RAW_APP}:${RAW_SECRET}`,
      ...env,
    },
    [],
  );
  const app = await buildApplication(config, createLogger({ level: 'silent' }));
  const listen = async (server: FastifyInstance | undefined): Promise<number> => {
    if (server === undefined) throw new Error('surface not built');
    await server.listen({ port: 0, host: '127.0.0.1' });
    return (server.server.address() as { port: number }).port;
  };
  const gatewayPort = await listen(app.gateway);
  const sitePort = await listen(app.site);
  let closed = false;
  return {
    app,
    gatewayPort,
    sitePort,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket error seen instead of (or after) the answer, e.g. EPIPE or ECONNRESET. */
  error: string | undefined;
  /** Milliseconds from the first byte written until the connection closed. */
  ms: number;
}

/** Parses the first HTTP/1.1 answer out of what a socket received (no chunked bodies needed here). */
export function parseAnswer(raw: string): Omit<RawAnswer, 'error' | 'ms'> {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(' ')[1] ?? Number.NaN);
  const rest = end === -1 ? '' : raw.slice(end + 4);
  const length = headers['content-length'];
  return { status, headers, body: length === undefined ? rest : rest.slice(0, Number(length)) };
}

export interface ExchangeOptions {
  /** Read nothing until every byte is written, as a client that sends its body before reading. */
  writeAllBeforeReading?: boolean;
  /** Give up (destroy the socket) after this long. */
  timeoutMs?: number;
}

/** Writes `data` on a fresh connection and collects everything until the server closes it. */
export function exchange(
  port: number,
  data: string | Buffer,
  options: ExchangeOptions = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    if (options.writeAllBeforeReading === true) socket.pause();
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 10_000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseAnswer(Buffer.concat(chunks).toString('latin1')), error, ms: Date.now() - started });
    });
    socket.write(data, () => socket.resume());
  });
}

/**
 * Opens a connection and sends `head` at once, then `trickleText` one byte every `everyMs`, until
 * the server closes it (or `giveUpMs` passes: then `error` is 'gave up').
 */
export function trickle(
  port: number,
  head: string,
  trickleText: string,
  everyMs: number,
  giveUpMs = 15_000,
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let index = 0;
    const timer = setInterval(() => {
      if (index < trickleText.length && socket.writable) socket.write(trickleText[index++] as string);
    }, everyMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    const giveUp = setTimeout(() => {
      error ??= 'gave up';
      socket.destroy();
    }, giveUpMs);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ...parseAnswer(Buffer.concat(chunks).toString('latin1')), error, ms: Date.now() - started });
    });
    socket.write(head);
  });
}

/** The answer is the error envelope with this status and code, a minted request id, and a JSON type. */
export function assertEnvelope(answer: RawAnswer, status: number, code: string): void {
  assert.equal(
    answer.status,
    status,
    `status (got ${answer.status}, body ${answer.body}, error ${answer.error})`,
  );
  const body = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } };
  assert.equal(body.error?.code, code, answer.body);
  assert.equal(typeof body.error?.message, 'string');
  assert.match(answer.headers['x-request-id'] ?? '', /^req_[0-9a-f]{32}$/, 'x-request-id');
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
}
