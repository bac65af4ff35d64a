import type { ProviderSlot } from '../../../config/config-types.ts';
import { readRelayedEvents, readRelayedMessage } from '../anthropic/anthropic-relay.ts';
import { fromAnthropicResponse } from '../anthropic/from-anthropic-response.ts';
import { fromAnthropicStream } from '../anthropic/from-anthropic-stream.ts';
import { toAnthropicRequest } from '../anthropic/to-anthropic-request.ts';
import { BEDROCK_BETAS } from '../bedrock/bedrock-relay.ts';
import { type CloudMessagesRules, toCloudMessagesBody, withIgnoredFields } from '../cloud-messages-body.ts';
import type { MessagesRelay, MessagesRelayCall, RelayedEvent, RelayedMessage } from '../messages-relay.ts';
import type { CallContext, ChatCall, ChatResult, ChatStreamEvent } from '../provider.ts';
import type { VertexCaller } from './vertex-caller.ts';

/** The Messages version Vertex's rawPredict takes for Claude (CONTRACT 6.4). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Vertex takes the same betas as Bedrock (both serve Claude's cloud releases). */
const RULES: CloudMessagesRules = {
  version: VERTEX_ANTHROPIC_VERSION,
  streamInUrl: false,
  betasInBody: false,
  supportedBetas: BEDROCK_BETAS,
};

/** Whether a Vertex model is one of Anthropic's (served under publishers/anthropic). */
export function isVertexClaude(model: string): boolean {
  return model.startsWith('claude-');
}

/**
 * Claude on Vertex: `publishers/anthropic/models/<m>:rawPredict` and `:streamRawPredict`, whose
 * body is the Messages API's without `model` and with `anthropic_version: vertex-2023-10-16`, and
 * whose answers are the Messages API's. The Anthropic door's same-vendor lane sends the client's
 * bytes that way; every other door's chat is written and read by the anthropic adapter's files.
 */
export class VertexClaude implements MessagesRelay {
  readonly #slot: ProviderSlot;
  readonly #caller: VertexCaller;
  readonly #defaultMaxTokens: number;

  constructor(slot: ProviderSlot, caller: VertexCaller, defaultMaxTokens: number) {
    this.#slot = slot;
    this.#caller = caller;
    this.#defaultMaxTokens = defaultMaxTokens;
  }

  #path(model: string, method: string): string {
    return `${this.#caller.publishers}/anthropic/models/${encodeURIComponent(model)}:${method}`;
  }

  async message(call: MessagesRelayCall, context: CallContext): Promise<RelayedMessage> {
    const { body, betas, ignored } = toCloudMessagesBody(call, RULES);
    const response = await this.#caller.send(
      this.#path(call.model, 'rawPredict'),
      { written: body },
      context,
      betaHeader(betas),
    );
    const message = readRelayedMessage(
      this.#slot,
      response.text,
      this.#caller.http.parseJson(response),
      call.model,
    );
    return ignored.length === 0 ? message : { ...message, ignoredFields: ignored };
  }

  async *stream(call: MessagesRelayCall, context: CallContext): AsyncIterable<RelayedEvent> {
    const { body, betas, ignored } = toCloudMessagesBody(call, RULES);
    const events = await this.#caller.openEvents(
      this.#path(call.model, 'streamRawPredict'),
      { written: body },
      context,
      betaHeader(betas),
    );
    yield* withIgnoredFields(readRelayedEvents(this.#slot, events), ignored);
  }

  async chat(call: ChatCall, model: string, context: CallContext): Promise<ChatResult> {
    const { body, jsonTool } = this.#request(call, false);
    const response = await this.#caller.send(this.#path(model, 'rawPredict'), { json: body }, context);
    const json = this.#caller.http.parseJson(response);
    return fromAnthropicResponse(json, { slot: this.#slot, requestedModel: model, jsonTool });
  }

  async *streamChat(call: ChatCall, model: string, context: CallContext): AsyncIterable<ChatStreamEvent> {
    const { body, jsonTool } = this.#request(call, true);
    const events = await this.#caller.openEvents(
      this.#path(model, 'streamRawPredict'),
      { json: body },
      context,
    );
    yield* fromAnthropicStream(events, { slot: this.#slot, requestedModel: model, jsonTool });
  }

  #request(call: ChatCall, stream: boolean) {
    const { body, jsonTool } = toAnthropicRequest(call, { defaultMaxTokens: this.#defaultMaxTokens, stream });
    const { model: _model, ...rest } = body;
    return { body: { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }, jsonTool };
  }
}

function betaHeader(betas: readonly string[]): Record<string, string> {
  return betas.length === 0 ? {} : { 'anthropic-beta': betas.join(',') };
}
