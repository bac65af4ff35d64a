// The guardrails' scan thread (see scan-thread.ts): the configured detector guards, compiled once
// from the settings the main thread hands over, run over large texts here so that the event loop
// never reads a megabyte through every detector. One message at a time: each is one synchronous call.
import { parentPort, workerData } from 'node:worker_threads';
import type { GuardSettings } from '../../config/guardrail-settings.ts';
import { type CompiledGuard, compileGuards } from './compile-guards.ts';
import type { ScanReply, ScanRequest } from './scan-thread.ts';
import { textOutcome } from './text-outcome.ts';

if (parentPort === null) throw new Error('guard-scan-worker runs as a worker thread');
const port = parentPort;
const guards = new Map(
  compileGuards((workerData as { guards: GuardSettings[] }).guards).map((guard) => [guard.name, guard]),
);

port.on('message', (request: ScanRequest) => {
  let reply: ScanReply;
  try {
    const named = request.guards.map((name) => {
      const guard = guards.get(name);
      if (guard === undefined) throw new Error(`no detector guard '${name}' on the scan thread`);
      return guard;
    }) as CompiledGuard[];
    reply = { id: request.id, ok: true, outcomes: request.texts.map((text) => textOutcome(named, text)) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
