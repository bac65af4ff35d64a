import { readUsageCounts, toReportedUsage } from '../providers/anthropic/anthropic-usage.ts';
import {
  jsonLines,
  type VendorBatchApi,
  type VendorPoll,
  type VendorRequest,
  type VendorResult,
  vendorCall,
  vendorJson,
} from './vendor-api.ts';

const VERSION = '2023-06-01';
const DOWNLOAD_MS = 600_000;
/** How far before a cut submission began a Message Batch it made may say it was created (clocks differ). */
const CLOCK_SKEW_MS = 60_000;

/**
 * Anthropic's Message Batches (API reference "Message Batches"): `POST /v1/messages/batches`
 * with every request's `custom_id` and `params`, `GET /v1/messages/batches/{id}` polled until
 * `processing_status` is `ended`, then the JSON Lines of its `results_url`; cancel is `POST
 * …/cancel`. `origin` is the slot's base URL (https://api.anthropic.com by default).
 */
export function anthropicVendorApi(origin: string, apiKey: string | undefined): VendorBatchApi {
  const headers: Record<string, string> = {
    'anthropic-version': VERSION,
    'content-type': 'application/json',
  };
  if (apiKey !== undefined && apiKey !== '') headers['x-api-key'] = apiKey;
  const base = `${origin.replace(/\/+$/, '')}/v1/messages/batches`;
  const getJson = async (url: string) => await vendorJson(await vendorCall(url, { headers }));

  return {
    async submit(_tag: string, _endpoint: string, requests: readonly VendorRequest[]) {
      const body = { requests: requests.map((r) => ({ custom_id: r.customId, params: r.body })) };
      const answer = await vendorCall(base, { method: 'POST', headers, body: JSON.stringify(body) });
      return String((await vendorJson(answer))['id']);
    },

    /**
     * A Message Batch carries no metadata: one made since the cut submission began (less the
     * clock skew) with as many requests is taken as it. Newest first, so the latest such.
     */
    async find(_tag: string, total: number, since: number) {
      const page = (await getJson(`${base}?limit=100`)) as { data?: Record<string, unknown>[] };
      const found = (page.data ?? []).find((batch) => {
        const created = Date.parse(String(batch.created_at));
        const counts = Object.values((batch.request_counts ?? {}) as Record<string, number>);
        return created >= since - CLOCK_SKEW_MS && counts.reduce((sum, n) => sum + Number(n), 0) === total;
      });
      return found === undefined ? undefined : String(found.id);
    },

    async poll(upstreamId: string): Promise<VendorPoll> {
      const batch = await getJson(`${base}/${encodeURIComponent(upstreamId)}`);
      if (batch.processing_status !== 'ended') return { ended: false };
      // What it never ran is `expired` past its 24 hours, `canceled` after a cancel.
      if (batch.cancel_initiated_at != null) return { ended: true, outcome: 'cancelled' };
      const expired = Number((batch.request_counts as { expired?: unknown } | undefined)?.expired ?? 0);
      return { ended: true, outcome: expired > 0 ? 'expired' : 'completed' };
    },

    async results(upstreamId: string, each: (result: VendorResult) => Promise<void>) {
      const batch = await getJson(`${base}/${encodeURIComponent(upstreamId)}`);
      const url = typeof batch.results_url === 'string' ? batch.results_url : `${base}/${upstreamId}/results`;
      const answer = await vendorCall(url, { headers }, DOWNLOAD_MS);
      for await (const line of jsonLines(answer)) await each(toResult(line));
    },

    async cancel(upstreamId: string) {
      await vendorCall(`${base}/${encodeURIComponent(upstreamId)}/cancel`, { method: 'POST', headers });
    },
  };
}

/** `{custom_id, result: {type: succeeded, message} | {type: errored, error} | {type: canceled | expired}}`. */
function toResult(line: Record<string, unknown>): VendorResult {
  const customId = String(line.custom_id);
  const result = (line.result ?? {}) as { type?: unknown; message?: unknown; error?: unknown };
  if (result.type === 'succeeded') {
    const message = (result.message ?? {}) as Record<string, unknown>;
    return {
      customId,
      state: 'succeeded',
      statusCode: 200,
      requestId: '',
      body: JSON.stringify(message),
      usage: toReportedUsage(readUsageCounts(message.usage)),
      model: typeof message.model === 'string' ? message.model : undefined,
    };
  }
  if (result.type === 'errored') {
    const error = (result.error ?? {}) as { error?: { type?: unknown } };
    const type = error.error?.type;
    const status = type === 'invalid_request_error' ? 400 : type === 'not_found_error' ? 404 : 500;
    return {
      customId,
      state: 'errored',
      statusCode: status,
      requestId: '',
      body: JSON.stringify(error),
      usage: undefined,
      model: undefined,
    };
  }
  const state = result.type === 'expired' ? 'expired' : 'canceled';
  return { customId, state, statusCode: 0, requestId: '', body: null, usage: undefined, model: undefined };
}
