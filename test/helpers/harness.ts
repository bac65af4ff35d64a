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
import { createLogger } from '../../src/platform/logger.ts';

export const APP = 'test-app';
export const SECRET = 'test-secret-0123456789';
export const AUTH = { 'x-gateway-app': APP, 'x-gateway-secret': SECRET } as const;

/** Upstream calls made, per slot and operation: what retry and fallback tests count. */
export type CallLog = { slot: ProviderSlot; operation: 'chat' | 'stream' | 'embed'; attempt: number }[];

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Written as the YAML CONFIG_FILE. */
  file?: Record<string, unknown>;
}

export interface Harness {
  app: Application;
  gateway: FastifyInstance;
  calls: CallLog;
  callsTo(slot: ProviderSlot): number;
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

/** A gateway on the simulated provider, in-memory storage, instant retry backoff, and counted upstream calls. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
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
  const app = await buildApplication(config, createLogger({ level: config.logLevel }), {
    retryWait: async () => {},
    adapterFactories: {
      ...ADAPTER_FACTORIES,
      simulated: (settings) => counting(new SimulatedProvider(settings), calls),
    },
  });
  const gateway = app.gateway;
  if (gateway === undefined) throw new Error('gateway surface not built');
  await gateway.ready();
  return {
    app,
    gateway,
    calls,
    callsTo: (slot) => calls.filter((c) => c.slot === slot).length,
    close: () => app.close(),
  };
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Parses an SSE body into events (comments skipped), as a client would. */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of body.split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}
