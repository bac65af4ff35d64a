import { ApiError } from '../../platform/errors.ts';

/** The endpoints a line of an OpenAI batch file may name (CONTRACT 6.7). */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** One request line, checked. */
export interface BatchLine {
  /** 1-based, blank lines counted. */
  line: number;
  customId: string;
  url: BatchEndpoint;
  /** The request body as JSON text. */
  body: string;
  model: string | undefined;
}

/** Whether the app may use a model (CONTRACT 6.5 allow lists); the one place a batch line's model is checked. */
export type ModelCheck = (app: string, model: string) => boolean;

export interface LineRules {
  app: string;
  maxLines: number;
  modelAllowed: ModelCheck;
  /** Where the error's `details` point: `/file` at upload, `/input_file_id` at batch creation. */
  pointer: string;
}

/** Longest `custom_id` kept; longer ones are refused rather than cut (they name results). */
const MAX_CUSTOM_ID = 512;

/** A refusal naming the line, in the envelope (each door renders it in its vendor's shape). */
export function lineError(pointer: string, line: number, message: string): ApiError {
  const text = `line ${line}: ${message}`;
  return new ApiError('invalid_request', `invalid batch file: ${text}`, {
    details: [{ path: pointer, message: text }],
  });
}

/**
 * Splits a JSON Lines file arriving in chunks into lines and checks each as OpenAI's batch input
 * (`{custom_id, method: "POST", url, body}`): JSON, a unique `custom_id` (a duplicate is named on
 * its second line), `url` one of BATCH_ENDPOINTS, a body object, a model the app may use, at
 * most `maxLines` requests. The first fault throws, naming its line. Memory: the current line,
 * and the custom ids seen (bounded by `maxLines` × MAX_CUSTOM_ID).
 */
export class BatchLineReader {
  readonly #rules: LineRules;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #seen = new Map<string, number>();
  #partial: Buffer[] = [];
  #line = 0;
  #requests = 0;
  readonly #onLine: ((line: BatchLine) => void) | undefined;

  constructor(rules: LineRules, onLine?: (line: BatchLine) => void) {
    this.#rules = rules;
    this.#onLine = onLine;
  }

  get requests(): number {
    return this.#requests;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.#partial.push(chunk.subarray(start, end));
      this.#take(Buffer.concat(this.#partial));
      this.#partial = [];
      start = end + 1;
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
  }

  /** The last line (without a newline), then the file as a whole: at least one request. */
  end(): void {
    if (this.#partial.length > 0) this.#take(Buffer.concat(this.#partial));
    this.#partial = [];
    if (this.#requests === 0)
      throw lineError(this.#rules.pointer, Math.max(this.#line, 1), 'the file holds no request');
  }

  #take(bytes: Buffer): void {
    const line = ++this.#line;
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      throw this.#fault(line, 'not valid UTF-8');
    }
    if (text.trim() === '') return;
    const checked = this.#check(line, text);
    this.#requests++;
    if (this.#requests > this.#rules.maxLines)
      throw this.#fault(line, `more than ${this.#rules.maxLines} requests in one file`);
    this.#onLine?.(checked);
  }

  #check(line: number, text: string): BatchLine {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw this.#fault(line, 'not valid JSON');
    }
    if (!isObject(value)) throw this.#fault(line, 'must be a JSON object');
    const customId = value.custom_id;
    if (typeof customId !== 'string' || customId === '')
      throw this.#fault(line, 'custom_id is missing (a non-empty string is required)');
    if (customId.length > MAX_CUSTOM_ID)
      throw this.#fault(line, `custom_id is longer than ${MAX_CUSTOM_ID} characters`);
    const first = this.#seen.get(customId);
    if (first !== undefined) throw this.#fault(line, `custom_id '${customId}' duplicates line ${first}`);
    this.#seen.set(customId, line);
    if (value.method !== 'POST') throw this.#fault(line, 'method must be POST');
    const url = value.url;
    if (typeof url !== 'string' || !(BATCH_ENDPOINTS as readonly string[]).includes(url))
      throw this.#fault(line, `url must be one of ${BATCH_ENDPOINTS.join(', ')}`);
    const body = value.body;
    if (!isObject(body)) throw this.#fault(line, 'body must be a JSON object');
    const model = typeof body.model === 'string' ? body.model : undefined;
    if (model !== undefined && !this.#rules.modelAllowed(this.#rules.app, model))
      throw this.#fault(line, `model '${model}' is not allowed for this app`);
    return { line, customId, url: url as BatchEndpoint, body: JSON.stringify(body), model };
  }

  #fault(line: number, message: string): ApiError {
    return lineError(this.#rules.pointer, line, message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
