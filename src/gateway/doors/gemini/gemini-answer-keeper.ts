import type { RelayKeeper } from '../../services/response-cache/run-cached-messages.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a Gemini answer ended that makes it worth keeping in the response cache: as the request
 * asked (`MAX_TOKENS` is its own limit, part of the key). SAFETY, RECITATION, a malformed call, a
 * blocked prompt (no candidate) or a reason the gateway does not know is not kept.
 */
const KEPT_FINISH_REASONS: ReadonlySet<unknown> = new Set(['STOP', 'MAX_TOKENS']);

/** Whether an answer (a GenerateContentResponse) has one candidate that ended as asked. */
function endedAsAsked(answer: unknown): boolean {
  if (!isObject(answer) || answer['error'] !== undefined) return false;
  const candidates = answer['candidates'];
  return (
    Array.isArray(candidates) &&
    candidates.length === 1 &&
    isObject(candidates[0]) &&
    KEPT_FINISH_REASONS.has(candidates[0]['finishReason'])
  );
}

/**
 * The Gemini door's same-vendor answers in the response cache (decision 0021, 0028): a whole
 * GenerateContentResponse that ended as asked is kept as Google wrote it; a stream's chunks are
 * put together into the one response Google would have answered whole (below), which a hit sends
 * whole or replays as one chunk.
 */
export const GEMINI_KEEPER: RelayKeeper = {
  isKept(text) {
    try {
      return endedAsAsked(JSON.parse(text));
    } catch {
      return false;
    }
  },
  builder: (maxBytes) => new GeminiAnswerBuilder(maxBytes),
};

/**
 * A relayed stream's chunks as one GenerateContentResponse: the parts of the one candidate in
 * order, a text part joined to the one before it when both are plain text of the same kind
 * (thought or not) and the earlier carries no signature (how a whole answer holds the text the
 * stream split); the candidate's other fields (finishReason, safety ratings, citations) and the
 * response's (usageMetadata, modelVersion, responseId, promptFeedback) as the latest chunk said
 * them. Gives nothing for a stream past `maxBytes`, with an error chunk, more than one candidate,
 * or a chunk it cannot read, rather than a wrong answer.
 */
class GeminiAnswerBuilder {
  readonly #maxBytes: number;
  #bytes = 0;
  #broken = false;
  #response: Json = {};
  #candidate: Json = {};
  #parts: Json[] = [];
  #role: unknown = 'model';

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get model(): string | undefined {
    const version = this.#response['modelVersion'];
    return typeof version === 'string' ? version : undefined;
  }

  add(_event: string, data: string): void {
    if (this.#broken) return;
    this.#bytes += data.length;
    try {
      if (this.#bytes > this.#maxBytes) throw new Error('past the entry bound');
      this.#take(JSON.parse(data) as unknown);
    } catch {
      this.#broken = true;
    }
  }

  message(): string | undefined {
    if (this.#broken) return undefined;
    const content = { parts: this.#parts, role: this.#role };
    // `candidates` first, as Google writes a response.
    const whole = { candidates: [{ content, ...this.#candidate }], ...this.#response };
    return endedAsAsked(whole) ? JSON.stringify(whole) : undefined;
  }

  #take(chunk: unknown): void {
    if (!isObject(chunk) || chunk['error'] !== undefined) throw new Error('not a chunk');
    const { candidates, ...rest } = chunk;
    Object.assign(this.#response, rest);
    if (candidates === undefined) return;
    if (!Array.isArray(candidates) || candidates.length !== 1 || !isObject(candidates[0]))
      throw new Error('not one candidate');
    const { content, ...fields } = candidates[0];
    Object.assign(this.#candidate, fields);
    if (content === undefined) return;
    if (!isObject(content)) throw new Error('content is not an object');
    if (content['role'] !== undefined) this.#role = content['role'];
    const parts = content['parts'] ?? [];
    if (!Array.isArray(parts)) throw new Error('parts is not a list');
    for (const part of parts) {
      if (!isObject(part)) throw new Error('a part is not an object');
      this.#addPart(part);
    }
  }

  #addPart(part: Json): void {
    const last = this.#parts.at(-1);
    if (last !== undefined && joinsText(last, part)) {
      const joined: Json = { ...last, text: `${last['text']}${part['text']}` };
      if (part['thoughtSignature'] !== undefined) joined['thoughtSignature'] = part['thoughtSignature'];
      this.#parts[this.#parts.length - 1] = joined;
      return;
    }
    this.#parts.push({ ...part });
  }
}

const TEXT_KEYS: ReadonlySet<string> = new Set(['text', 'thought', 'thoughtSignature']);

/** Whether `part` continues the text of `last`: both plain text, the same kind, `last` unsigned. */
function joinsText(last: Json, part: Json): boolean {
  const plain = (value: Json) =>
    typeof value['text'] === 'string' && Object.keys(value).every((key) => TEXT_KEYS.has(key));
  return (
    plain(last) &&
    plain(part) &&
    last['thoughtSignature'] === undefined &&
    (last['thought'] === true) === (part['thought'] === true)
  );
}
