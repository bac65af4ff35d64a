import type { ReportedUsage } from '../domain/reported-usage.ts';
import { readOpenAIUsage } from '../providers/openai/completion-fields.ts';
import {
  jsonLines,
  type SubmitMarks,
  type VendorBatchApi,
  type VendorPoll,
  type VendorRequest,
  type VendorResult,
  vendorCall,
  vendorJson,
} from './vendor-api.ts';

/** The metadata key that names the gateway's batch on OpenAI's, so a cut submission is found again. */
export const GATEWAY_BATCH_KEY = 'gateway_batch_id';

const DOWNLOAD_MS = 600_000;

/**
 * OpenAI's Files and Batch API (API reference "Files", "Batch"): the requests uploaded as a JSON
 * Lines file (`purpose: batch`), `POST /batches` with the gateway's batch id in `metadata`,
 * `GET /batches/{id}` polled, then `output_file_id` and `error_file_id` read (`/files/{id}/content`).
 * `baseUrl` ends in `/v1`, as an `openai` slot's does.
 */
export function openAIVendorApi(baseUrl: string, apiKey: string | undefined): VendorBatchApi {
  const headers = (extra: Record<string, string> = {}): Record<string, string> =>
    apiKey === undefined || apiKey === '' ? extra : { ...extra, authorization: `Bearer ${apiKey}` };
  const json = { 'content-type': 'application/json' };
  const getJson = async (path: string) =>
    await vendorJson(await vendorCall(`${baseUrl}${path}`, { headers: headers() }));

  return {
    async submit(tag: string, endpoint: string, requests: readonly VendorRequest[], marks: SubmitMarks) {
      let fileId = marks.fileId;
      if (fileId === null) {
        const text = requests
          .map((r) => JSON.stringify({ custom_id: r.customId, method: 'POST', url: endpoint, body: r.body }))
          .join('\n');
        const form = new FormData();
        form.append('purpose', 'batch');
        form.append('file', new Blob([`${text}\n`], { type: 'application/jsonl' }), `${tag}.jsonl`);
        const answer = await vendorCall(`${baseUrl}/files`, {
          method: 'POST',
          headers: headers(),
          body: form,
        });
        fileId = String((await vendorJson(answer))['id']);
        await marks.onFile(fileId);
      }
      const body = {
        input_file_id: fileId,
        endpoint,
        completion_window: '24h',
        metadata: { [GATEWAY_BATCH_KEY]: tag },
      };
      const answer = await vendorCall(`${baseUrl}/batches`, {
        method: 'POST',
        headers: headers(json),
        body: JSON.stringify(body),
      });
      return String((await vendorJson(answer))['id']);
    },

    async find(tag: string) {
      // Newest first: a submission cut short is among the last batches made.
      const page = (await getJson('/batches?limit=100')) as { data?: Record<string, unknown>[] };
      const found = (page.data ?? []).find(
        (batch) => (batch.metadata as Record<string, unknown> | null)?.[GATEWAY_BATCH_KEY] === tag,
      );
      return found === undefined ? undefined : String(found.id);
    },

    async poll(upstreamId: string): Promise<VendorPoll> {
      const batch = await getJson(`/batches/${encodeURIComponent(upstreamId)}`);
      const status = batch.status;
      if (status === 'completed' || status === 'cancelled' || status === 'expired')
        return { ended: true, outcome: status };
      if (status === 'failed') {
        const data = (batch.errors as { data?: unknown } | null)?.data;
        return { ended: true, outcome: 'failed', errors: JSON.stringify(data ?? []) };
      }
      return { ended: false };
    },

    async results(upstreamId: string, each: (result: VendorResult) => Promise<void>) {
      const batch = await getJson(`/batches/${encodeURIComponent(upstreamId)}`);
      for (const field of ['output_file_id', 'error_file_id']) {
        const fileId = batch[field];
        if (typeof fileId !== 'string' || fileId === '') continue;
        const url = `${baseUrl}/files/${encodeURIComponent(fileId)}/content`;
        const answer = await vendorCall(url, { headers: headers() }, DOWNLOAD_MS);
        for await (const line of jsonLines(answer)) await each(toResult(line));
      }
    },

    async cancel(upstreamId: string) {
      await vendorCall(`${baseUrl}/batches/${encodeURIComponent(upstreamId)}/cancel`, {
        method: 'POST',
        headers: headers(),
      });
    },
  };
}

/**
 * A line of an output or error file: `{custom_id, response: {status_code, request_id, body},
 * error}`. A line with no response (the request never ran) carries `error: {code, message}`,
 * kept as an OpenAI error body with status 500.
 */
function toResult(line: Record<string, unknown>): VendorResult {
  const customId = String(line.custom_id);
  const response = line.response as { status_code?: unknown; request_id?: unknown; body?: unknown } | null;
  if (response === null || response === undefined) {
    const error = (line.error ?? {}) as { code?: unknown; message?: unknown };
    const expired = error.code === 'batch_expired';
    const body = {
      error: {
        message: String(error.message ?? 'no answer'),
        type: 'server_error',
        param: null,
        code: error.code ?? null,
      },
    };
    return {
      customId,
      state: expired ? 'expired' : error.code === 'batch_cancelled' ? 'canceled' : 'errored',
      statusCode: 500,
      requestId: '',
      body: JSON.stringify(body),
      usage: undefined,
      model: undefined,
    };
  }
  const status = Number(response.status_code);
  const body = (response.body ?? {}) as Record<string, unknown>;
  return {
    customId,
    state: status >= 200 && status < 300 ? 'succeeded' : 'errored',
    statusCode: status,
    requestId: typeof response.request_id === 'string' ? response.request_id : '',
    body: JSON.stringify(body),
    usage: usageOf(body.usage),
    model: typeof body.model === 'string' ? body.model : undefined,
  };
}

/** Chat Completions', Embeddings' (`prompt_tokens` only) or Responses' (`input_tokens`) usage. */
function usageOf(usage: unknown): ReportedUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const fields = usage as Record<string, unknown>;
  if (typeof fields.input_tokens === 'number') {
    const result: ReportedUsage = {
      inputTokens: fields.input_tokens,
      outputTokens: Number(fields.output_tokens ?? 0),
    };
    const cached = (fields.input_tokens_details as { cached_tokens?: unknown } | undefined)?.cached_tokens;
    if (typeof cached === 'number') result.cacheReadTokens = cached;
    return result;
  }
  if (typeof fields.prompt_tokens === 'number' && fields.completion_tokens === undefined)
    return { inputTokens: fields.prompt_tokens, outputTokens: 0 };
  return readOpenAIUsage(usage);
}
