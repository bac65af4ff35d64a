import { hash } from 'node:crypto';
import { BoundedCache } from '../../../platform/bounded-cache.ts';
import { ApiError, type FieldIssue } from '../../../platform/errors.ts';
import type { ChatMessage, ToolDefinition } from '../../domain/messages.ts';
import {
  MAX_TOOL_CALLS_PER_MESSAGE,
  MAX_TOOLS,
  MAX_TOOLS_BYTES,
  TOOL_NAME_PATTERN,
} from '../../domain/tool-limits.ts';
import type { ChatInput } from '../../domain/use-case-inputs.ts';
import { assertDepthWithin } from '../../json/inspect-schema.ts';
import type { SchemaCompiler } from '../../json/schema-compiler.ts';

const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);

/** Tool lists already found valid, per compiler (whose limits they were checked against). */
const validLists = new WeakMap<SchemaCompiler, BoundedCache<string, true>>();
const VALID_LISTS_KEPT = 500;

/** Lists up to this many characters are their own cache key; longer ones are keyed by digest. */
const LITERAL_KEY_CHARS = 2048;

/**
 * Checks what a chat request says about tools, for every door (the native route and the
 * compatible ones call it on the ChatInput they built): the tool definitions, the tool choice,
 * and the tool calls and results in the conversation. Throws a 400 `invalid_request` whose
 * detail names the JSON Pointer (into the ChatInput, which the native body mirrors) of the fault.
 *
 * Each parameters schema goes through the same bounded compiler as /v1/json schemas (depth, size,
 * RE2 patterns, forced sizes). A client sends the same tools on every turn of an agent loop, so
 * a list found valid is remembered by a key of its canonical JSON and not checked again.
 */
export function validateToolRequest(input: ChatInput, schemas: SchemaCompiler): void {
  const tools = input.tools;
  const names = new Set<string>();
  if (tools !== undefined && tools.length > 0) validateTools(tools, schemas, names);
  validateToolChoice(input, names);
  validateConversation(input.messages);
}

function validateTools(tools: readonly ToolDefinition[], schemas: SchemaCompiler, names: Set<string>): void {
  if (tools.length > MAX_TOOLS) throw toolError('/tools', `at most ${MAX_TOOLS} tools may be given`);
  tools.forEach((tool, index) => {
    const path = `/tools/${index}`;
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      throw toolError(`${path}/name`, `a tool name must match ${TOOL_NAME_PATTERN}`);
    }
    if (names.has(tool.name)) throw toolError(`${path}/name`, `tool name '${tool.name}' is given twice`);
    names.add(tool.name);
    const parameters: unknown = tool.parameters;
    if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
      throw toolError(`${path}/parameters`, 'parameters must be a JSON Schema object');
    }
    if ((parameters as Record<string, unknown>).type !== 'object') {
      throw toolError(`${path}/parameters/type`, 'parameters must be an object schema (type: "object")');
    }
    // Before the canonical text is built, which recurses.
    underPath(`${path}/parameters`, () => assertDepthWithin(parameters, schemas.maxDepth));
  });
  const text = canonicalText(tools);
  if (Buffer.byteLength(text) > MAX_TOOLS_BYTES) {
    throw toolError('/tools', `the tools are larger than ${MAX_TOOLS_BYTES} bytes together`);
  }
  let cache = validLists.get(schemas);
  if (cache === undefined) {
    cache = new BoundedCache(VALID_LISTS_KEPT);
    validLists.set(schemas, cache);
  }
  const key = text.length <= LITERAL_KEY_CHARS ? text : `#${hash('sha256', text, 'base64')}`;
  if (cache.get(key) === true) return;
  tools.forEach((tool, index) => {
    underPath(`/tools/${index}/parameters`, () => schemas.compile(tool.parameters));
  });
  cache.set(key, true);
}

function validateToolChoice(input: ChatInput, names: ReadonlySet<string>): void {
  const choice = input.toolChoice;
  if (choice === undefined) return;
  if (names.size === 0) throw toolError('/toolChoice', 'toolChoice is only allowed with tools');
  if (typeof choice === 'object' && !names.has(choice.name)) {
    throw toolError('/toolChoice/name', `toolChoice names '${choice.name}', which is not among the tools`);
  }
}

/**
 * Tool calls only on assistant messages, call ids unique, and a tool message's `toolCallId`
 * answering a call of an earlier assistant message. A tool message without `toolCallId` stays
 * accepted, as before tools existed (adapters send it as a labelled user message).
 */
function validateConversation(messages: readonly ChatMessage[]): void {
  const callIds = new Set<string>();
  messages.forEach((message, index) => {
    const path = `/messages/${index}`;
    const calls = message.toolCalls;
    if (calls !== undefined) {
      if (message.role !== 'assistant' && calls.length > 0) {
        throw toolError(`${path}/toolCalls`, 'only assistant messages carry tool calls');
      }
      if (calls.length > MAX_TOOL_CALLS_PER_MESSAGE) {
        throw toolError(`${path}/toolCalls`, `at most ${MAX_TOOL_CALLS_PER_MESSAGE} tool calls per message`);
      }
      calls.forEach((call, j) => {
        if (callIds.has(call.id)) {
          throw toolError(`${path}/toolCalls/${j}/id`, `tool call id '${call.id}' is used twice`);
        }
        callIds.add(call.id);
      });
    }
    if (message.toolCallId === undefined) return;
    if (message.role !== 'tool') {
      throw toolError(`${path}/toolCallId`, 'only tool messages carry toolCallId');
    }
    if (!callIds.has(message.toolCallId)) {
      throw toolError(
        `${path}/toolCallId`,
        `'${message.toolCallId}' answers no tool call of an earlier assistant message`,
      );
    }
  });
}

/**
 * JSON with object keys sorted, so that the same tools with keys in another order are the same
 * list. Recursive, which is safe here: every parameters schema was found at most
 * json.maxSchemaDepth deep just before, and recursion with string concatenation is about twice as
 * fast as the stack-based writer of json/unique-items.ts, which has to take any depth.
 */
function canonicalText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + canonicalText(value[i]);
    return `${text}]`;
  }
  let text = '{';
  for (const key of Object.keys(value).sort()) {
    const child = (value as Record<string, unknown>)[key];
    if (child === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:${canonicalText(child)}`;
  }
  return `${text}}`;
}

function toolError(path: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { details: [{ path, message }] });
}

/** Runs a schema check, moving the compiler's `/schema…` pointers under `base`. */
function underPath(base: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof ApiError) || !Array.isArray(error.details)) throw error;
    const details = (error.details as FieldIssue[]).map((issue) => ({
      path: issue.path.startsWith('/schema') ? base + issue.path.slice('/schema'.length) : issue.path,
      message: issue.message,
    }));
    const first = details[0];
    const message = first === undefined ? error.message : `${first.path}: ${first.message}`;
    throw new ApiError('invalid_request', `tool parameters are not a usable JSON Schema (${message})`, {
      details,
      cause: error,
    });
  }
}
