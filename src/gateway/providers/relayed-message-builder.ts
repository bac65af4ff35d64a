/**
 * Why a Messages answer ended that makes it worth keeping in the response cache: it ended as the
 * request asked (`max_tokens` is the answer its own limit, part of the key, asked for). A
 * `pause_turn`, a `refusal`, or a reason the gateway does not know is not kept.
 */
const KEPT_STOP_REASONS: ReadonlySet<unknown> = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a whole relayed answer (its text) is a complete Message that ended normally. */
export function isKeptMessageText(text: string): boolean {
  try {
    const message: unknown = JSON.parse(text);
    return isObject(message) && message.type === 'message' && KEPT_STOP_REASONS.has(message.stop_reason);
  } catch {
    return false;
  }
}

/**
 * A relayed stream's final Message, rebuilt from its events as they pass (Anthropic's streaming
 * format): message_start's message, each content block from its start and deltas (text, thinking
 * and its signature, a tool's input JSON, citations), message_delta's stop reason and usage. It
 * gives a message only for a stream that reached message_stop with a kept stop reason and no
 * error, and whose events stayed within `maxBytes`; anything it cannot rebuild faithfully (a delta
 * of a kind it does not know, data that is no JSON) gives nothing rather than a wrong answer.
 */
export class RelayedMessageBuilder {
  readonly #maxBytes: number;
  #bytes = 0;
  #message: Json | undefined;
  #content: Json[] = [];
  /** A tool block's input as it streams (input_json_delta), by block index. */
  readonly #inputs = new Map<number, string>();
  #stopped = false;
  #broken = false;
  #startUsage: unknown;
  #deltaUsage: unknown;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** One event as the upstream sent it. */
  add(event: string, data: string): void {
    if (this.#broken) return;
    this.#bytes += data.length;
    if (this.#bytes > this.#maxBytes || this.#stopped) {
      this.#giveUp();
      return;
    }
    if (event === 'ping') return;
    try {
      this.#take(event, JSON.parse(data) as unknown);
    } catch {
      this.#giveUp();
    }
  }

  /** The answer's `model` as message_start said it, once it did. */
  get model(): string | undefined {
    const model = this.#message?.model;
    return typeof model === 'string' ? model : undefined;
  }

  /**
   * The usage as the stream said it (message_start's, the last message_delta's), for a replay to
   * say it the same way: the rebuilt message holds the two merged.
   */
  get streamUsage(): { start: unknown; delta: unknown } {
    return { start: this.#startUsage, delta: this.#deltaUsage };
  }

  /** The rebuilt Message's JSON text, or undefined when the stream is not one to keep. */
  message(): string | undefined {
    const message = this.#message;
    if (this.#broken || !this.#stopped || message === undefined) return undefined;
    if (!KEPT_STOP_REASONS.has(message.stop_reason)) return undefined;
    return JSON.stringify({ ...message, content: this.#content });
  }

  #take(event: string, data: unknown): void {
    if (!isObject(data)) throw new Error('not an object');
    if (event === 'message_start') {
      if (this.#message !== undefined || !isObject(data.message)) throw new Error('no message');
      this.#message = { ...data.message };
      this.#startUsage = data.message.usage;
      return;
    }
    const message = this.#message;
    if (message === undefined) throw new Error('no message_start');
    if (event === 'content_block_start') this.#startBlock(data);
    else if (event === 'content_block_delta') this.#addDelta(data);
    else if (event === 'content_block_stop') this.#stopBlock(data);
    else if (event === 'message_delta') {
      const delta = isObject(data.delta) ? data.delta : {};
      Object.assign(message, delta);
      if (isObject(data.usage)) {
        this.#deltaUsage = data.usage;
        message.usage = { ...(isObject(message.usage) ? message.usage : {}), ...data.usage };
      }
    } else if (event === 'message_stop') this.#stopped = true;
    // An `error` event: the answer is not complete. Other events of later versions change no answer.
    else if (event === 'error') throw new Error('error event');
  }

  #startBlock(data: Json): void {
    const index = data.index;
    if (index !== this.#content.length || !isObject(data.content_block))
      throw new Error('block out of order');
    const block = { ...data.content_block };
    if (block.type === 'tool_use' || block.type === 'server_tool_use' || block.type === 'mcp_tool_use')
      this.#inputs.set(index, '');
    this.#content.push(block);
  }

  #addDelta(data: Json): void {
    const block = this.#blockAt(data.index);
    const delta = data.delta;
    if (!isObject(delta)) throw new Error('no delta');
    switch (delta.type) {
      case 'text_delta':
        block.text = `${typeof block.text === 'string' ? block.text : ''}${String(delta.text)}`;
        return;
      case 'thinking_delta':
        block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${String(delta.thinking)}`;
        return;
      case 'signature_delta':
        block.signature = delta.signature;
        return;
      case 'citations_delta':
        block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
        return;
      case 'input_json_delta': {
        const index = data.index as number;
        const sofar = this.#inputs.get(index);
        if (sofar === undefined) throw new Error('input for a block without one');
        this.#inputs.set(index, sofar + String(delta.partial_json));
        return;
      }
      default:
        throw new Error('a delta this builder does not know');
    }
  }

  #stopBlock(data: Json): void {
    const block = this.#blockAt(data.index);
    const input = this.#inputs.get(data.index as number);
    if (input !== undefined) block.input = input === '' ? {} : (JSON.parse(input) as unknown);
  }

  #blockAt(index: unknown): Json {
    const block = typeof index === 'number' ? this.#content[index] : undefined;
    if (block === undefined) throw new Error('no such block');
    return block;
  }

  #giveUp(): void {
    this.#broken = true;
    this.#message = undefined;
    this.#content = [];
    this.#inputs.clear();
  }
}
