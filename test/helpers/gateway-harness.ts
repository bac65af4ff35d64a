import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { type Application, buildApplication } from '../../src/app.ts';
import type { ProviderSlot } from '../../src/config/config-types.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { ProviderAdapter } from '../../src/gateway/providers/provider.ts';
import { ADAPTER_FACTORIES } from '../../src/gateway/providers/registry.ts';
import { SimulatedProvider } from '../../src/gateway/providers/simulated/simulated-provider.ts';
import type { TokenizerThread } from '../../src/gateway/tokenizer/tokenizer-thread.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { type CleanupContext, startForSuite, startForTest } from './harness-lifecycle.ts';
import { bindRequests, type Reply, type RequestOptions, type Requests } from './inject-reply.ts';
import { parseSse, type SseEvent } from './parse-sse.ts';

export const APP = 'test-app';
export const SECRET = 'test-secret-0123456789';
export const AUTH = { 'x-gateway-app': APP, 'x-gateway-secret': SECRET } as const;

/** Upstream calls made, per slot and operation: what retry and fallback tests count. */
export type CallLog = { slot: ProviderSlot; operation: 'chat' | 'stream' | 'embed'; attempt: number }[];

export interface HarnessOptions {
  /** How often the governance store's version is read (default 1 s). */
  governancePollMs?: number;
  env?: Record<string, string>;
  /** Written as the YAML CONFIG_FILE. */
  file?: Record<string, unknown>;
  /** The tokenizer's thread (by default the application's own). */
  tokenizer?: TokenizerThread;
  /** The application's clock (by default the system's): tests of time windows set their own. */
  clock?: Clock;
  /** Where the gateway's log lines go (with `env.LOG_LEVEL`), for tests of what is logged. */
  logs?: NodeJS.WritableStream;
}

export interface GatewayRequestOptions extends RequestOptions {
  /** Send the test app's credentials (the default); false sends none, for the tests of refusals. */
  auth?: boolean;
}

/** A streamed chat as a client reads it: the events parsed, or the JSON error when no stream began. */
export interface StreamReply extends Reply {
  events: SseEvent[];
}

export interface Harness extends Requests<GatewayRequestOptions> {
  app: Application;
  gateway: FastifyInstance;
  calls: CallLog;
  callsTo(slot: ProviderSlot): number;
  /** POST /v1/chat. */
  chat(body: unknown, options?: GatewayRequestOptions): Promise<Reply>;
  /** POST /v1/chat with `stream: true`. */
  stream(body: Record<string, unknown>, options?: GatewayRequestOptions): Promise<StreamReply>;
  /** POST /v1/embed. */
  embed(body: unknown, options?: GatewayRequestOptions): Promise<Reply>;
  /** POST /v1/json. */
  json(body: unknown, options?: GatewayRequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

export function writeConfigFile(content: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const path = join(dir, 'config.yaml');
  writeFileSync(path, stringify(content));
  return path;
}

function counting(adapter: ProviderAdapter, calls: CallLog): ProviderAdapter {
  return {
    slot: adapter.slot,
    kind: adapter.kind,
    capabilities: adapter.capabilities,
    chat: (call, context) => {
      calls.push({ slot: adapter.slot, operation: 'chat', attempt: context.attempt });
      return adapter.chat(call, context);
    },
    streamChat: (call, context) => {
      calls.push({ slot: adapter.slot, operation: 'stream', attempt: context.attempt });
      return adapter.streamChat(call, context);
    },
    embed: (call, context) => {
      calls.push({ slot: adapter.slot, operation: 'embed', attempt: context.attempt });
      return adapter.embed(call, context);
    },
  };
}

/** A gateway for one test, closed when the test ends. */
export function startGateway(t: CleanupContext, options: HarnessOptions = {}): Promise<Harness> {
  return startForTest(t, () => createGateway(options));
}

/**
 * A gateway shared by the tests of the enclosing describe, started before them and closed after.
 * Options that depend on an earlier `before` (a mock upstream's URL, a fresh schema) are given as a
 * function, read when the gateway starts; hooks run in the order they were declared.
 */
export function shareGateway(options: HarnessOptions | (() => HarnessOptions) = {}): Harness {
  return startForSuite(() => createGateway(typeof options === 'function' ? options() : options));
}

/**
 * A gateway on the simulated provider, in-memory storage, instant retry backoff, and counted upstream
 * calls. The caller closes it: for tests about closing; others use startGateway or shareGateway.
 */
export async function createGateway(options: HarnessOptions = {}): Promise<Harness> {
  const env: Record<string, string> = {
    DATA_DIR: ':memory:',
    LOG_LEVEL: 'silent',
    GATEWAY_APPS: `${APP}:${SECRET}`,
    SURFACES: 'gateway',
    ...options.env,
  };
  if (options.file !== undefined) env.CONFIG_FILE = writeConfigFile(options.file);
  const config = loadConfig(env, []);
  const calls: CallLog = [];
  const logger = createLogger({
    level: config.logLevel,
    ...(options.logs === undefined ? {} : { destination: options.logs }),
  });
  const app = await buildApplication(config, logger, {
    retryWait: async () => {},
    ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.governancePollMs === undefined ? {} : { governancePollMs: options.governancePollMs }),
    adapterFactories: {
      ...ADAPTER_FACTORIES,
      simulated: (settings, shared) => counting(new SimulatedProvider(settings, shared.tokenizer), calls),
    },
  });
  const gateway = app.gateway;
  if (gateway === undefined) throw new Error('gateway surface not built');
  await gateway.ready();
  const requests = bindRequests<GatewayRequestOptions>(gateway, (options) => ({
    ...(options?.auth === false ? {} : AUTH),
    ...options?.headers,
  }));
  return {
    ...requests,
    app,
    gateway,
    calls,
    callsTo: (slot) => calls.filter((c) => c.slot === slot).length,
    chat: (body, options) => requests.post('/v1/chat', body, options),
    async stream(body, options) {
      const reply = await requests.post('/v1/chat', { ...body, stream: true }, options);
      const streamed = String(reply.headers['content-type']).startsWith('text/event-stream');
      return { ...reply, events: streamed ? parseSse(reply.text) : [] };
    },
    embed: (body, options) => requests.post('/v1/embed', body, options),
    json: (body, options) => requests.post('/v1/json', body, options),
    close: () => app.close(),
  };
}
