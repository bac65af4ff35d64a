import type { ProviderSlot } from '../../../config/config-types.ts';
import type { AnthropicContentBlock, AnthropicThinkingBlock } from '../anthropic/anthropic-content-parts.ts';
import type { AnthropicBlock, AnthropicMessage } from '../anthropic/anthropic-turns.ts';
import { type JsonToolPlan, toAnthropicRequest } from '../anthropic/to-anthropic-request.ts';
import type { ChatCall } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';

/**
 * A chat call as a Bedrock Converse request (POST /model/{id}/converse and converse-stream), the
 * one chat API every Bedrock model has. The turns are built as the Messages API's (anthropic-turns:
 * alternating, starting with `user`, tool results first), which are Converse's rules too, then
 * written in Converse's blocks: `text`, `image` and `document` with their bytes, `toolUse`,
 * `toolResult`, `reasoningContent` (Claude's signed thinking), a `cachePoint` after a block the
 * caller marked for caching. Structured output is the same forced tool. Thinking goes to Claude
 * models as `additionalModelRequestFields.thinking`; other models take none.
 */
export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: ConverseBlock[];
  inferenceConfig: { maxTokens: number; temperature?: number; stopSequences?: string[] };
  toolConfig?: { tools: { toolSpec: ToolSpec }[]; toolChoice?: ToolChoice };
  additionalModelRequestFields?: Record<string, unknown>;
}

interface ToolSpec {
  name: string;
  description?: string;
  inputSchema: { json: Record<string, unknown> };
}
type ToolChoice = { auto: object } | { any: object } | { tool: { name: string } };
export type ConverseBlock = Record<string, unknown>;
interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseBlock[];
}

export interface TranslatedConverse {
  body: ConverseRequest;
  jsonTool: JsonToolPlan | undefined;
}

const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function toConverseRequest(
  slot: ProviderSlot,
  call: ChatCall,
  upstreamModel: string,
  defaultMaxTokens: number,
): TranslatedConverse {
  const { body: messages, jsonTool } = toAnthropicRequest(call, { defaultMaxTokens, stream: false });
  const writer = new BlockWriter(slot);
  const body: ConverseRequest = {
    messages: messages.messages.map((turn) => writer.message(turn)),
    inferenceConfig: { maxTokens: messages.max_tokens },
  };
  if (messages.system !== undefined) body.system = [{ text: messages.system }];
  if (messages.temperature !== undefined) body.inferenceConfig.temperature = messages.temperature;
  if (messages.stop_sequences !== undefined) body.inferenceConfig.stopSequences = messages.stop_sequences;
  if (messages.tools !== undefined) {
    body.toolConfig = {
      tools: messages.tools.map((tool) => ({
        toolSpec: {
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: { json: tool.input_schema },
        },
      })),
    };
    const choice = messages.tool_choice;
    // Converse has no `none`: the tools stay declared (earlier toolUse blocks need them), choice auto.
    if (choice !== undefined && choice.type !== 'none')
      body.toolConfig.toolChoice =
        choice.type === 'tool'
          ? { tool: { name: choice.name } }
          : choice.type === 'any'
            ? { any: {} }
            : { auto: {} };
  }
  if (messages.thinking !== undefined && isClaude(upstreamModel))
    body.additionalModelRequestFields = { thinking: messages.thinking };
  return { body, jsonTool };
}

/** Whether a Bedrock model id (or inference profile) is one of Anthropic's Claude models. */
export function isClaude(modelId: string): boolean {
  return /(^|\.)anthropic\.claude|^claude-/.test(modelId) || modelId.includes('anthropic.claude');
}

class BlockWriter {
  readonly #slot: ProviderSlot;
  #documents = 0;

  constructor(slot: ProviderSlot) {
    this.#slot = slot;
  }

  message(turn: AnthropicMessage): ConverseMessage {
    const content =
      typeof turn.content === 'string'
        ? [{ text: turn.content }]
        : turn.content.flatMap((block) => this.#block(block));
    return { role: turn.role, content };
  }

  #block(block: AnthropicBlock): ConverseBlock[] {
    switch (block.type) {
      case 'tool_use':
        return [{ toolUse: { toolUseId: block.id, name: block.name, input: block.input } }];
      case 'tool_result': {
        const content =
          block.content === undefined
            ? []
            : typeof block.content === 'string'
              ? [{ text: block.content }]
              : block.content.flatMap((inner) => this.#media(inner));
        return [{ toolResult: { toolUseId: block.tool_use_id, content } }];
      }
      case 'thinking':
      case 'redacted_thinking':
        return [this.#thinking(block)];
      default:
        return this.#media(block);
    }
  }

  #thinking(block: AnthropicThinkingBlock): ConverseBlock {
    return block.type === 'thinking'
      ? { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } }
      : { reasoningContent: { redactedContent: block.data } };
  }

  /** A text, image or document block, and a cache point after it when it was marked. */
  #media(block: AnthropicContentBlock): ConverseBlock[] {
    const written = this.#content(block);
    return block.cache_control === undefined ? [written] : [written, { cachePoint: { type: 'default' } }];
  }

  #content(block: AnthropicContentBlock): ConverseBlock {
    if (block.type === 'text') return { text: block.text };
    if (block.source.type === 'url') throw this.#refused(`${block.type} URLs (Bedrock takes the bytes)`);
    if (block.type === 'image') {
      const format = IMAGE_FORMATS[block.source.media_type];
      if (format === undefined) throw this.#refused(`images of type ${block.source.media_type}`);
      return { image: { format, source: { bytes: block.source.data } } };
    }
    this.#documents++;
    const name = `document-${this.#documents}`;
    return { document: { format: 'pdf', name, source: { bytes: block.source.data } } };
  }

  #refused(what: string): ProviderError {
    return new ProviderError({
      slot: this.#slot,
      failure: 'http',
      status: 400,
      retryable: false,
      detail: `Bedrock Converse does not take ${what}`,
      upstreamMessage: `Bedrock Converse does not take ${what}`,
    });
  }
}
