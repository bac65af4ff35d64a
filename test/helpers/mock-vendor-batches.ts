import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Recording stand-ins for the vendors' batch APIs: OpenAI's Files and Batch API (under `/v1`) and
 * Anthropic's Message Batches, with the wire shapes of their API references. The official SDKs
 * drive them directly (test/clients/vendor-batch-mocks.test.ts), which keeps them honest, before
 * the gateway's tests trust them.
 *
 * A batch is `in_progress` until it has been polled `pollsToEnd` times (default 1) and is not
 * held (`hold()`); then it ends, every request answered: a chat completion or Message whose text
 * is `echo:<custom_id>` with usage 10 in, 5 out; a request whose model is `mock-fail` gets a 400.
 * A cancel ends it at once with nothing answered (OpenAI: no output; Anthropic: `canceled`).
 */

export interface Recorded {
  method: string;
  path: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

interface Batch {
  id: string;
  created: number;
  requests: { custom_id: string; body: Record<string, unknown> }[];
  polls: number;
  status: 'in_progress' | 'ended' | 'cancelled';
  meta: Record<string, unknown>;
}

export interface MockVendorBatches {
  /** OpenAI's base URL (with `/v1`). */
  openaiBaseUrl: string;
  /** Anthropic's origin. */
  anthropicOrigin: string;
  requests: Recorded[];
  /** Batches made (both vendors), in order. */
  batches: Batch[];
  pollsToEnd: number;
  /** `POST /batches` (either vendor's) makes the batch at once and answers this much later (a kill in flight). */
  createDelayMs: number;
  /** Keeps every batch in progress until the function returned is called. */
  hold(): () => void;
  close(): Promise<void>;
}

const USAGE_IN = 10;
const USAGE_OUT = 5;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'request-id': 'req_mockbatch' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

const failing = (body: Record<string, unknown>) => body.model === 'mock-fail';

function chatAnswer(customId: string, body: Record<string, unknown>) {
  return {
    id: `chatcmpl-${customId}`,
    object: 'chat.completion',
    created: 1_754_380_980,
    model: String(body.model),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: `echo:${customId}`, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: USAGE_IN, completion_tokens: USAGE_OUT, total_tokens: USAGE_IN + USAGE_OUT },
  };
}

function message(customId: string, body: Record<string, unknown>) {
  return {
    id: `msg_${customId}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model),
    content: [{ type: 'text', text: `echo:${customId}` }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: USAGE_IN, output_tokens: USAGE_OUT },
  };
}

export async function startMockVendorBatches(
  options: { pollsToEnd?: number } = {},
): Promise<MockVendorBatches> {
  const requests: Recorded[] = [];
  const batches: Batch[] = [];
  const files = new Map<string, string>();
  let held = false;
  let seq = 0;
  let origin = '';
  const mock = { pollsToEnd: options.pollsToEnd ?? 1, createDelayMs: 0 };

  /** Polled once more: ended once polled enough and not held. */
  const advance = (batch: Batch) => {
    batch.polls++;
    if (batch.status === 'in_progress' && !held && batch.polls >= mock.pollsToEnd) batch.status = 'ended';
  };
  const find = (id: string) => batches.find((b) => b.id === id);

  const openaiBatch = (batch: Batch) => {
    const ended = batch.status !== 'in_progress';
    const ok = batch.requests.filter((r) => !failing(r.body)).length;
    const done = batch.status === 'ended';
    return {
      id: batch.id,
      object: 'batch',
      endpoint: batch.meta.endpoint,
      errors: null,
      input_file_id: batch.meta.input_file_id,
      completion_window: '24h',
      status: batch.status === 'ended' ? 'completed' : batch.status,
      output_file_id: done && ok > 0 ? `file-out-${batch.id}` : null,
      error_file_id: done && ok < batch.requests.length ? `file-err-${batch.id}` : null,
      created_at: Math.floor(batch.created / 1000),
      in_progress_at: Math.floor(batch.created / 1000),
      expires_at: Math.floor(batch.created / 1000) + 86_400,
      finalizing_at: null,
      completed_at: done ? Math.floor(Date.now() / 1000) : null,
      failed_at: null,
      expired_at: null,
      cancelling_at: batch.status === 'cancelled' ? Math.floor(Date.now() / 1000) : null,
      cancelled_at: batch.status === 'cancelled' ? Math.floor(Date.now() / 1000) : null,
      request_counts: {
        total: batch.requests.length,
        completed: done ? ok : 0,
        failed: done ? batch.requests.length - ok : 0,
      },
      metadata: batch.meta.metadata ?? null,
      ...(ended ? {} : {}),
    };
  };

  const openaiResultLines = (batch: Batch, errors: boolean) =>
    batch.requests
      .filter((r) => failing(r.body) === errors)
      .map((r, i) => {
        const response = errors
          ? {
              status_code: 400,
              request_id: `req_${i}`,
              body: {
                error: {
                  message: 'mock-fail is not a model',
                  type: 'invalid_request_error',
                  param: 'model',
                  code: 'model_not_found',
                },
              },
            }
          : { status_code: 200, request_id: `req_${r.custom_id}`, body: chatAnswer(r.custom_id, r.body) };
        return `${JSON.stringify({ id: `batch_req_${i}`, custom_id: r.custom_id, response, error: null })}\n`;
      })
      .join('');

  const anthropicBatch = (batch: Batch) => {
    const ended = batch.status !== 'in_progress';
    const ok = batch.requests.filter((r) => !failing(r.body)).length;
    const cancelled = batch.status === 'cancelled';
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: ended ? 'ended' : 'in_progress',
      request_counts: {
        processing: ended ? 0 : batch.requests.length,
        succeeded: batch.status === 'ended' ? ok : 0,
        errored: batch.status === 'ended' ? batch.requests.length - ok : 0,
        canceled: cancelled ? batch.requests.length : 0,
        expired: 0,
      },
      ended_at: ended ? new Date().toISOString() : null,
      created_at: new Date(batch.created).toISOString(),
      expires_at: new Date(batch.created + 86_400_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: cancelled ? new Date().toISOString() : null,
      results_url: ended ? `${origin}/v1/messages/batches/${batch.id}/results` : null,
    };
  };

  const anthropicResult = (batch: Batch, r: Batch['requests'][number]) => {
    if (batch.status === 'cancelled') return { custom_id: r.custom_id, result: { type: 'canceled' } };
    if (failing(r.body))
      return {
        custom_id: r.custom_id,
        result: {
          type: 'errored',
          error: {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'mock-fail is not a model' },
          },
        },
      };
    return { custom_id: r.custom_id, result: { type: 'succeeded', message: message(r.custom_id, r.body) } };
  };

  async function openai(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer): Promise<void> {
    if (req.headers.authorization !== 'Bearer openai-key')
      return send(res, 401, {
        error: { message: 'bad key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
    const url = new URL(path, 'http://mock');
    const parts = url.pathname.split('/').filter(Boolean); // v1, files|batches, id, …
    if (req.method === 'POST' && url.pathname === '/v1/files') {
      const form = await new Request('http://mock/', {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body: raw,
      }).formData();
      const file = form.get('file') as File;
      const id = `file-up-${++seq}`;
      files.set(id, await file.text());
      return send(res, 200, {
        id,
        object: 'file',
        bytes: file.size,
        created_at: Math.floor(Date.now() / 1000),
        filename: file.name,
        purpose: String(form.get('purpose')),
        status: 'processed',
        status_details: null,
      });
    }
    if (parts[1] === 'files' && parts[3] === 'content' && req.method === 'GET') {
      const id = String(parts[2]);
      const batch = batches.find((b) => id === `file-out-${b.id}` || id === `file-err-${b.id}`);
      if (batch !== undefined)
        return send(
          res,
          200,
          openaiResultLines(batch, id.startsWith('file-err')),
          'application/octet-stream',
        );
      const text = files.get(id);
      return text === undefined
        ? send(res, 404, { error: { message: 'no file' } })
        : send(res, 200, text, 'application/octet-stream');
    }
    if (req.method === 'POST' && url.pathname === '/v1/batches') {
      const meta = JSON.parse(raw.toString()) as Record<string, unknown>;
      const text = files.get(String(meta.input_file_id));
      if (text === undefined)
        return send(res, 400, {
          error: {
            message: 'no such file',
            type: 'invalid_request_error',
            param: 'input_file_id',
            code: null,
          },
        });
      const lines = text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Batch['requests'][number]);
      const batch: Batch = {
        id: `batch_up${++seq}`,
        created: Date.now(),
        requests: lines,
        polls: 0,
        status: 'in_progress',
        meta,
      };
      batches.push(batch);
      if (mock.createDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, mock.createDelayMs));
      return send(res, 200, openaiBatch(batch));
    }
    if (req.method === 'GET' && url.pathname === '/v1/batches') {
      const data = batches
        .filter((b) => b.id.startsWith('batch_'))
        .reverse()
        .slice(0, Number(url.searchParams.get('limit') ?? 20))
        .map(openaiBatch);
      return send(res, 200, {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: false,
      });
    }
    const batch = parts[1] === 'batches' ? find(String(parts[2])) : undefined;
    if (batch === undefined)
      return send(res, 404, {
        error: { message: 'not found', type: 'invalid_request_error', param: null, code: null },
      });
    if (req.method === 'POST' && parts[3] === 'cancel') {
      if (batch.status === 'in_progress') batch.status = 'cancelled';
      return send(res, 200, openaiBatch(batch));
    }
    advance(batch);
    return send(res, 200, openaiBatch(batch));
  }

  async function anthropic(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    raw: Buffer,
  ): Promise<void> {
    // The API takes the key as `x-api-key` (the gateway's adapter) or a bearer token (this SDK's version).
    const key = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    if (key !== 'anthropic-key' || req.headers['anthropic-version'] === undefined)
      return send(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'bad key' } });
    const url = new URL(path, 'http://mock');
    const parts = url.pathname.split('/').filter(Boolean); // v1, messages, batches, id, …
    if (req.method === 'POST' && parts.length === 3) {
      const body = JSON.parse(raw.toString()) as {
        requests: { custom_id: string; params: Record<string, unknown> }[];
      };
      const requests = body.requests.map((r) => ({ custom_id: r.custom_id, body: r.params }));
      const batch: Batch = {
        id: `msgbatch_up${++seq}`,
        created: Date.now(),
        requests,
        polls: 0,
        status: 'in_progress',
        meta: {},
      };
      batches.push(batch);
      if (mock.createDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, mock.createDelayMs));
      return send(res, 200, anthropicBatch(batch));
    }
    if (req.method === 'GET' && parts.length === 3) {
      const data = batches
        .filter((b) => b.id.startsWith('msgbatch_'))
        .reverse()
        .slice(0, Number(url.searchParams.get('limit') ?? 20))
        .map(anthropicBatch);
      return send(res, 200, {
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: false,
      });
    }
    const batch = find(String(parts[3]));
    if (batch === undefined)
      return send(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'no batch' } });
    if (req.method === 'POST' && parts[4] === 'cancel') {
      if (batch.status === 'in_progress') batch.status = 'cancelled';
      return send(res, 200, anthropicBatch(batch));
    }
    if (parts[4] === 'results') {
      const lines = batch.requests.map((r) => `${JSON.stringify(anthropicResult(batch, r))}\n`).join('');
      return send(res, 200, lines, 'application/binary');
    }
    advance(batch);
    return send(res, 200, anthropicBatch(batch));
  }

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? '', path, body: raw.toString(), headers: req.headers });
    try {
      if (path.startsWith('/v1/messages/batches')) await anthropic(req, res, path, raw);
      else await openai(req, res, path, raw);
    } catch (error) {
      send(res, 500, { error: { message: String(error) } });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return Object.assign(mock, {
    openaiBaseUrl: `${origin}/v1`,
    anthropicOrigin: origin,
    requests,
    batches,
    hold: () => {
      held = true;
      return () => {
        held = false;
      };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
