import type { ProviderSlot } from '../../../config/config-types.ts';
import { readRelayedEvents, readRelayedMessage } from '../anthropic/anthropic-relay.ts';
import { type CloudMessagesRules, toCloudMessagesBody, withIgnoredFields } from '../cloud-messages-body.ts';
import { safeJson } from '../http/upstream-http.ts';
import { asString, isRecord } from '../json-guards.ts';
import type { MessagesRelay, MessagesRelayCall, RelayedEvent, RelayedMessage } from '../messages-relay.ts';
import type { CallContext } from '../provider.ts';
import type { BedrockCaller } from './bedrock-caller.ts';
import { bedrockStreamError } from './bedrock-error.ts';

/** The Messages version Bedrock's InvokeModel takes for Claude (CONTRACT 6.4). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * The betas Bedrock's Claude models take, as AWS documents them; Claude Code's others (its own
 * `claude-code-*`, OAuth, prompt-caching scopes) are left out and named (CONTRACT 6.9).
 */
export const BEDROCK_BETAS: ReadonlySet<string> = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
  'fine-grained-tool-streaming-2025-05-14',
]);

const RULES: CloudMessagesRules = {
  version: BEDROCK_ANTHROPIC_VERSION,
  streamInUrl: true,
  betasInBody: true,
  supportedBetas: BEDROCK_BETAS,
};

/**
 * The Anthropic door's same-vendor lane on a bedrock slot: InvokeModel and
 * InvokeModelWithResponseStream with the client's Messages body (cloud-messages-body.ts). The
 * stream's frames each carry one Messages event, base64 in `bytes`, relayed as Anthropic's SSE.
 */
export class BedrockRelay implements MessagesRelay {
  readonly #slot: ProviderSlot;
  readonly #caller: BedrockCaller;

  constructor(slot: ProviderSlot, caller: BedrockCaller) {
    this.#slot = slot;
    this.#caller = caller;
  }

  async message(call: MessagesRelayCall, context: CallContext): Promise<RelayedMessage> {
    const { body, ignored } = toCloudMessagesBody(call, RULES);
    const response = await this.#caller.send(`${modelPath(call.model)}/invoke`, body, context);
    const message = readRelayedMessage(this.#slot, response.text, safeJson(response.text), call.model);
    return ignored.length === 0 ? message : { ...message, ignoredFields: ignored };
  }

  async *stream(call: MessagesRelayCall, context: CallContext): AsyncIterable<RelayedEvent> {
    const { body, ignored } = toCloudMessagesBody(call, RULES);
    const frames = await this.#caller.openFrames(
      `${modelPath(call.model)}/invoke-with-response-stream`,
      body,
      context,
    );
    yield* withIgnoredFields(readRelayedEvents(this.#slot, this.#messagesEvents(frames)), ignored);
  }

  /** Each `chunk` frame's Messages event; an exception frame as Anthropic's `error` event. */
  async *#messagesEvents(
    frames: AsyncIterable<{ event?: string | undefined; id?: string | undefined; data: string }>,
  ) {
    for await (const frame of frames) {
      if (frame.event === 'exception') {
        const failure = bedrockStreamError(this.#slot, frame.id, frame.data);
        const type =
          failure.status === 429
            ? 'rate_limit_error'
            : failure.status === 400
              ? 'invalid_request_error'
              : 'api_error';
        const message = failure.upstreamMessage ?? failure.detail ?? 'Bedrock stream error';
        yield { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) };
        continue;
      }
      if (frame.event !== 'chunk') continue;
      const chunk = safeJson(frame.data);
      const bytes = isRecord(chunk) ? asString(chunk['bytes']) : undefined;
      if (bytes === undefined) continue;
      const data = Buffer.from(bytes, 'base64').toString('utf8');
      const parsed = safeJson(data);
      const type = isRecord(parsed) ? asString(parsed['type']) : undefined;
      yield { event: type ?? 'message', data };
    }
  }
}

/** `/model/<id>`, the id encoded as one path segment (ids hold `:`, ARNs `/`). */
export function modelPath(modelId: string): string {
  return `/model/${encodeURIComponent(modelId)}`;
}
