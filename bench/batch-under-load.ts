import { runAutocannon } from './load-autocannon.ts';
import type { Server } from './processes.ts';
import { BENCH_APP, BENCH_SECRET, requestFor } from './scenarios.ts';

/** Requests of the batch that runs beside live traffic (CONTRACT 6.7's "2,000-request batch"). */
const BATCH_REQUESTS = 2000;

export interface BatchRound {
  withoutP50: number;
  withP50: number;
  /** Batch requests completed while the live load ran. */
  batchDone: number;
  /** Live chat requests answered in the window, without and with the batch. */
  liveWithout: number;
  liveWith: number;
}

export interface BatchRow {
  connections: number;
  seconds: number;
  rounds: BatchRound[];
}

const AUTH = { authorization: `Bearer ${BENCH_APP}:${BENCH_SECRET}` };

/** What the bench reads of a file or a batch. */
interface Answer {
  id: string;
  status: string;
  request_counts: { completed: number };
}

async function call(server: Server, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    ...init,
    headers: { ...AUTH, ...(init.headers as Record<string, string>) },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Answer;
}

async function uploadBatchFile(server: Server): Promise<string> {
  const lines = Array.from({ length: BATCH_REQUESTS }, (_, i) =>
    JSON.stringify({
      custom_id: `bench-${i}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: {
        // A name no slot lists, so the default route takes it and the gateway runs the batch itself
        // (a batch pinned to an openai slot would go to OpenAI's batch API and cost this instance
        // a few polls): the case that competes with live traffic.
        model: 'bench-batch-model',
        messages: [{ role: 'user', content: `Summarise item ${i}.` }],
        max_tokens: 64,
      },
    }),
  );
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([lines.join('\n')]), 'bench.jsonl');
  return (await call(server, '/v1/files', { method: 'POST', body: form })).id;
}

const batchState = (server: Server, id: string) => call(server, `/v1/batches/${id}`);

/**
 * Live chat latency on the OpenAI door (the `openai-chat` workload) while a 2,000-request batch
 * runs on the same gateway, against the same load without it, in alternating rounds (so a
 * drift of the shared machine falls on both). Each round starts a fresh batch from one file,
 * waits until its runner has answered a request, measures, and cancels it before the next
 * round's measurement without.
 */
export async function measureBatchUnderLoad(
  server: Server,
  options: { connections: number; seconds: number; rounds: number; log: (line: string) => void },
): Promise<BatchRow> {
  const fileId = await uploadBatchFile(server);
  const spec = requestFor('gateway', 'openai-chat');
  const load = () =>
    runAutocannon({ port: server.port, spec, connections: options.connections, seconds: options.seconds });
  await load(); // warm-up
  const rounds: BatchRound[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const without = await load();
    const batch = await call(server, '/v1/batches', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        input_file_id: fileId,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      }),
    });
    for (let i = 0; i < 200 && (await batchState(server, batch.id)).request_counts.completed === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const before = (await batchState(server, batch.id)).request_counts.completed;
    const withBatch = await load();
    const after = await batchState(server, batch.id);
    await call(server, `/v1/batches/${batch.id}/cancel`, { method: 'POST' });
    if (after.status !== 'in_progress')
      options.log(`batch round ${round}: the batch ended (${after.status}) inside the window`);
    rounds.push({
      withoutP50: without.latency.p50,
      withP50: withBatch.latency.p50,
      batchDone: after.request_counts.completed - before,
      liveWithout: without.requests,
      liveWith: withBatch.requests,
    });
    options.log(
      `batch round ${round}: live p50 ${without.latency.p50.toFixed(3)} ms without, ${withBatch.latency.p50.toFixed(3)} ms with (${after.request_counts.completed - before} batch requests done)`,
    );
    // The cancelled batch's request in flight finishes before the next measurement without.
    for (let i = 0; i < 200 && (await batchState(server, batch.id)).status === 'cancelling'; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { connections: options.connections, seconds: options.seconds, rounds };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** One row per connection count: medians over the rounds, the ratio against the 10% target. */
export function batchTable(rows: readonly BatchRow[]): string {
  return [
    '| live chat (OpenAI door) | c | p50 without a batch | p50 with a 2,000-request batch running | with / without | batch requests done in the window | target |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(batchLine),
    '',
    ...rows.map(
      (row) =>
        `Rounds at c=${row.connections} (p50 without / with, ms): ${row.rounds.map((r) => `${r.withoutP50.toFixed(3)} / ${r.withP50.toFixed(3)}`).join('; ')}.`,
    ),
    '',
    'The machine is shared with other work: compare the rounds, not one figure.',
  ].join('\n');
}

function batchLine(row: BatchRow): string {
  const without = median(row.rounds.map((r) => r.withoutP50));
  const withBatch = median(row.rounds.map((r) => r.withP50));
  const ratio = withBatch / without;
  const done = median(row.rounds.map((r) => r.batchDone));
  return `| openai-chat, ${row.seconds} s x ${row.rounds.length} rounds | ${row.connections} | ${without.toFixed(3)} ms | ${withBatch.toFixed(3)} ms | ${ratio.toFixed(3)} | ${done} | ${ratio <= 1.1 ? 'met' : 'NOT met'} (at most 1.10) |`;
}
