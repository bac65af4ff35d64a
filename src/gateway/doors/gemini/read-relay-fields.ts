import { DEFAULT_OUTPUT_RESERVATION } from '../../limits/estimate-usage.ts';
import { refuseGeminiField } from './gemini-refusal.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the gateway itself needs of a body it relays: its limits' guess and the plan's needs. */
export interface RelayFields {
  maxTokens: number;
  /** Whether it declares functions: planning skips slots that cannot call them. */
  tools: boolean;
  /** The texts of contents and system instruction (not inline data), for the limits' guess. */
  texts: string[];
}

/**
 * Reads a GenerateContentRequest lightly, for the same-vendor lane: `contents` must be a list of
 * Content, the rest goes upstream as it came and Google judges it; only text parts are collected,
 * so an image's base64 does not count as its length in tokens.
 */
export function readRelayFields(body: unknown): RelayFields {
  if (!isObject(body)) throw refuseGeminiField('body', 'must be a GenerateContentRequest object');
  const contents = body['contents'];
  if (!Array.isArray(contents) || contents.length === 0)
    throw refuseGeminiField('contents', 'must be a non-empty list of Content');
  const texts: string[] = [];
  const collect = (content: unknown) => {
    if (!isObject(content) || !Array.isArray(content['parts'])) return;
    for (const part of content['parts'])
      if (isObject(part) && typeof part['text'] === 'string') texts.push(part['text']);
  };
  contents.forEach((content, index) => {
    if (!isObject(content)) throw refuseGeminiField(`contents[${index}]`, 'must be a Content');
    collect(content);
  });
  collect(body['systemInstruction']);
  const config = body['generationConfig'];
  const max = isObject(config) ? config['maxOutputTokens'] : undefined;
  const tools = body['tools'];
  return {
    maxTokens:
      typeof max === 'number' && Number.isSafeInteger(max) && max > 0 ? max : DEFAULT_OUTPUT_RESERVATION,
    tools:
      Array.isArray(tools) &&
      tools.some((tool) => isObject(tool) && Array.isArray(tool['functionDeclarations'])),
    texts,
  };
}
