import { readBoundedBody } from '../../platform/read-bounded-body.ts';
import type { ReportedUsage } from '../domain/reported-usage.ts';

/** One request's answer from a vendor's batch, as the client's result will carry it. */
export interface VendorResult {
  customId: string;
  state: 'succeeded' | 'errored' | 'canceled' | 'expired';
  /** The answer's HTTP status (200 for a success; the error's where the vendor gives one). */
  statusCode: number;
  requestId: string;
  /** JSON: the answer's body, or the error body the client's result file carries. */
  body: string | null;
  usage: ReportedUsage | undefined;
  /** The model that answered, as the vendor names it. */
  model: string | undefined;
}

/** Where a vendor's batch is: still running, or ended and how. */
export type VendorPoll =
  | { ended: false }
  | { ended: true; outcome: 'completed' | 'cancelled' | 'expired' | 'failed'; errors?: string };

/** A request as sent upstream: its `custom_id` and its body, the model the vendor's own name. */
export interface VendorRequest {
  customId: string;
  body: Record<string, unknown>;
}

/** The vendor's batch ids the submission made so far, kept at once (a restart resumes from them). */
export interface SubmitMarks {
  /** OpenAI's input file, when an earlier try uploaded it. */
  fileId: string | null;
  onFile(fileId: string): Promise<void>;
}

/**
 * A vendor's batch API (OpenAI's Files and Batch API, Anthropic's Message Batches) as the
 * gateway uses it: submit once, find a submission a crash cut short, poll, read results, cancel.
 * Errors are thrown (the poller tries again later); a refusal of the submission itself is a
 * VendorRefusal, which ends the batch's requests `errored`.
 */
export interface VendorBatchApi {
  /** Sends the batch; the vendor's batch id. `tag` names the gateway's batch upstream. */
  submit(
    tag: string,
    endpoint: string,
    requests: readonly VendorRequest[],
    marks: SubmitMarks,
  ): Promise<string>;
  /** The vendor's batch a submission begun at `since` made, if the vendor has it. */
  find(tag: string, total: number, since: number): Promise<string | undefined>;
  poll(upstreamId: string): Promise<VendorPoll>;
  /** Every result line, in the vendor's order. */
  results(upstreamId: string, each: (result: VendorResult) => Promise<void>): Promise<void>;
  cancel(upstreamId: string): Promise<void>;
}

/** The vendor refused the submission (a 4xx): the batch's requests end `errored` with its answer. */
export class VendorRefusal extends Error {
  readonly status: number;
  readonly body: string;

  constructor(status: number, body: string) {
    super(`the vendor refused the batch (${status})`);
    this.status = status;
    this.body = body;
  }
}

/** The most of a vendor's refusal kept (its error is a sentence or two; the rest is not read). */
export const MAX_REFUSAL_BYTES = 64 * 1024;
/** The longest answer read as one JSON value: a batch's or a file's description, never results. */
export const MAX_DESCRIPTION_BYTES = 4 * 1024 * 1024;

/** A call to the vendor: its answer's body, or an error (VendorRefusal for a 4xx but 408/409/429). */
export async function vendorCall(url: string, init: RequestInit, timeoutMs = 60_000): Promise<Response> {
  const answer = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  if (answer.ok) return answer;
  const body =
    (await readBoundedBody(answer, MAX_REFUSAL_BYTES)) ??
    `(the vendor's answer was longer than ${MAX_REFUSAL_BYTES} bytes)`;
  if (answer.status >= 400 && answer.status < 500 && ![408, 409, 429].includes(answer.status))
    throw new VendorRefusal(answer.status, body);
  throw new Error(`the vendor answered ${answer.status} to ${init.method ?? 'GET'} ${new URL(url).pathname}`);
}

/**
 * A vendor's answer read as one JSON value (a batch's or a file's description), up to
 * MAX_DESCRIPTION_BYTES: a longer one is a broken upstream, and the call fails as a failed read
 * does (the poller tries again later) instead of holding it.
 */
export async function vendorJson(answer: Response): Promise<Record<string, unknown>> {
  const text = await readBoundedBody(answer, MAX_DESCRIPTION_BYTES);
  if (text === undefined)
    throw new Error(`the vendor's answer is longer than ${MAX_DESCRIPTION_BYTES} bytes`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * The longest result line read: one request's answer with its body (the live routes' bodies are
 * bounded far below this). A longer line is a broken upstream, not a result: the read fails, as
 * any failed read does, and the poller tries again later instead of holding it in memory.
 */
export const MAX_RESULT_LINE_CHARS = 64 * 1024 * 1024;

/** JSON Lines of a body, line by line as they arrive (results can be large; each line is bounded). */
export async function* jsonLines(
  answer: Response,
  maxLineChars = MAX_RESULT_LINE_CHARS,
): AsyncGenerator<Record<string, unknown>> {
  if (answer.body === null) return;
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of answer.body) {
    rest += decoder.decode(chunk as Uint8Array, { stream: true });
    let end = rest.indexOf('\n');
    while (end >= 0) {
      const line = rest.slice(0, end).trim();
      rest = rest.slice(end + 1);
      if (line !== '') yield JSON.parse(line) as Record<string, unknown>;
      end = rest.indexOf('\n');
    }
    if (rest.length > maxLineChars)
      throw new Error(`a result line of the vendor's batch is longer than ${maxLineChars} characters`);
  }
  rest += decoder.decode();
  if (rest.trim() !== '') yield JSON.parse(rest) as Record<string, unknown>;
}
