import { isRecord } from './json-guards.ts';

/**
 * A tool call's arguments text as the object Anthropic (`tool_use.input`) and Gemini
 * (`functionCall.args`) require. The text comes from a model (possibly another vendor's, replayed
 * by the caller), so it may be empty or not JSON: empty means no arguments (`{}`, as Anthropic
 * streams an argument-less call), and text that is not a JSON object also becomes `{}`, since
 * both vendors refuse anything but an object and the call itself must still be sent to pair with
 * its result.
 */
export function argumentsObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Upper bounds on what a stream may make the adapter hold while it assembles tool calls: an
 * upstream (or something pretending to be one) could otherwise send endless argument fragments.
 * Past them the answer is an `invalid_response`.
 */
export const MAX_STREAMED_TOOL_CALLS = 128;
export const MAX_TOOL_ARGUMENT_CHARS = 4 * 1024 * 1024;
