import { createHash } from 'node:crypto';
import {
  argumentsText,
  fragmentsOf,
  isObject,
  MockRejection,
  roughTokens,
  SCRIPTED_PROMPT_TOKENS,
  type ScriptedReply,
} from './scripted-reply.ts';

// The tool-calling half of the Gemini mock: what generateContent refuses about function calling,
// and scripted answers with functionCall parts, whole or streamed (see mock-gemini-server.ts).

/** The values Google documents for function calls it did not produce (history from another model). */
const STAND_INS = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;
const MODES = new Set(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']);

/**
 * Refuses, as the Gemini API does (400 INVALID_ARGUMENT): malformed function declarations (a bad
 * name, both `parameters` and `parametersJsonSchema`), a functionCallingConfig with an unknown mode
 * or naming undeclared functions, more than 5 stop sequences, a functionCall outside a model turn
 * or a functionResponse outside a user turn, and a function response turn that does not answer the
 * function call turn just before it (as many responses as calls, same names, same ids when given).
 * On gemini-3 models the current turn's calls must carry a thoughtSignature on their first part.
 * A signature must be one the mock issued (Gemini decrypts and checks its own) or one of the two
 * values Google documents for calls it did not produce; anything else is refused as corrupted.
 */
export function checkGeminiToolFields(
  body: Record<string, unknown>,
  model: string,
  issued: ReadonlySet<string> = new Set(),
): void {
  const declared = checkTools(body['tools']);
  checkToolConfig(body['toolConfig'], declared);
  const config = body['generationConfig'];
  const stops = isObject(config) ? config['stopSequences'] : undefined;
  if (
    stops !== undefined &&
    (!Array.isArray(stops) || stops.length > 5 || !stops.every((s) => typeof s === 'string'))
  ) {
    throw new MockRejection(
      '* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences\n',
    );
  }
  const contents = body['contents'];
  if (!Array.isArray(contents))
    throw new MockRejection('* GenerateContentRequest.contents: contents is not specified\n');
  let lastCalls: Record<string, unknown>[] = [];
  let currentTurnStart = 0;
  for (const [index, content] of contents.entries()) {
    const parts = isObject(content) ? content['parts'] : undefined;
    if (!isObject(content) || !Array.isArray(parts) || parts.length === 0 || !parts.every(isObject)) {
      throw new MockRejection(
        `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`,
      );
    }
    const role = content['role'] ?? 'user';
    const calls = parts.flatMap((part) => (isObject(part['functionCall']) ? [part['functionCall']] : []));
    const responses = parts.flatMap((part) =>
      isObject(part['functionResponse']) ? [part['functionResponse']] : [],
    );
    if (role === 'user' && calls.length > 0) {
      throw new MockRejection(
        `* GenerateContentRequest.contents[${index}]: functionCall parts are only allowed in model turns.\n`,
      );
    }
    if (role === 'model' && responses.length > 0) {
      throw new MockRejection(
        `* GenerateContentRequest.contents[${index}]: functionResponse parts are only allowed in user turns.\n`,
      );
    }
    for (const call of calls) {
      if (typeof call['name'] !== 'string' || (call['args'] !== undefined && !isObject(call['args']))) {
        throw new MockRejection(`* GenerateContentRequest.contents[${index}].parts.function_call: invalid\n`);
      }
    }
    for (const part of parts) {
      const signature = part['thoughtSignature'];
      if (
        signature !== undefined &&
        !issued.has(signature as string) &&
        !STAND_INS.has(signature as string)
      ) {
        throw new MockRejection(
          `Corrupted thought signature in GenerateContentRequest.contents[${index}].parts.thought_signature.`,
        );
      }
    }
    if (responses.length > 0) checkResponses(responses, lastCalls, index);
    if (role === 'user' && responses.length === 0) currentTurnStart = index;
    lastCalls = calls;
    if (role === 'model' && calls.length > 0 && model.startsWith('gemini-3') && index > currentTurnStart) {
      const first = parts.find((part) => isObject(part['functionCall']));
      if (typeof first?.['thoughtSignature'] !== 'string') {
        throw new MockRejection(
          `Function call is missing a thought_signature in functionCall parts. Additional data, function call \`${String(calls[0]?.['name'])}\`, position ${index}.`,
        );
      }
    }
  }
}

function checkTools(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (tools === undefined) return names;
  if (!Array.isArray(tools)) throw new MockRejection('* GenerateContentRequest.tools: must be a list\n');
  for (const [t, tool] of tools.entries()) {
    const declarations = isObject(tool) ? tool['functionDeclarations'] : undefined;
    if (declarations === undefined) continue;
    if (!Array.isArray(declarations)) {
      throw new MockRejection(`* GenerateContentRequest.tools[${t}].function_declarations: must be a list\n`);
    }
    for (const [d, declaration] of declarations.entries()) {
      const at = `GenerateContentRequest.tools[${t}].function_declarations[${d}]`;
      if (
        !isObject(declaration) ||
        typeof declaration['name'] !== 'string' ||
        !FUNCTION_NAME.test(declaration['name'])
      ) {
        throw new MockRejection(
          `* ${at}.name: Invalid function name. Must start with a letter or an underscore.\n`,
        );
      }
      if (declaration['parameters'] !== undefined && declaration['parametersJsonSchema'] !== undefined) {
        throw new MockRejection(`* ${at}: parameters and parameters_json_schema are mutually exclusive\n`);
      }
      const schema = declaration['parametersJsonSchema'];
      if (schema !== undefined && !isObject(schema)) {
        throw new MockRejection(`* ${at}.parameters_json_schema: must be a JSON object\n`);
      }
      names.add(declaration['name']);
    }
  }
  return names;
}

function checkToolConfig(toolConfig: unknown, declared: Set<string>): void {
  if (toolConfig === undefined) return;
  const config = isObject(toolConfig) ? toolConfig['functionCallingConfig'] : undefined;
  if (!isObject(config)) return;
  const mode = config['mode'] ?? 'MODE_UNSPECIFIED';
  if (!MODES.has(mode as string)) {
    throw new MockRejection(`Invalid value at 'tool_config.function_calling_config.mode' (${String(mode)})`);
  }
  const allowed = config['allowedFunctionNames'];
  if (allowed === undefined) return;
  if (mode !== 'ANY' && mode !== 'VALIDATED') {
    throw new MockRejection(
      '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: only allowed in ANY mode\n',
    );
  }
  for (const name of Array.isArray(allowed) ? allowed : [allowed]) {
    if (typeof name !== 'string' || !declared.has(name)) {
      throw new MockRejection(
        `* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: ${String(name)} is not declared\n`,
      );
    }
  }
}

function checkResponses(
  responses: Record<string, unknown>[],
  calls: Record<string, unknown>[],
  index: number,
): void {
  if (responses.length !== calls.length) {
    throw new MockRejection(
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    );
  }
  const open = [...calls];
  for (const response of responses) {
    if (typeof response['name'] !== 'string' || !isObject(response['response'])) {
      throw new MockRejection(
        `* GenerateContentRequest.contents[${index}].parts.function_response: name and response are required\n`,
      );
    }
    const at = open.findIndex(
      (call) =>
        call['name'] === response['name'] &&
        (call['id'] === undefined || response['id'] === undefined || call['id'] === response['id']),
    );
    if (at < 0) {
      throw new MockRejection(
        `* GenerateContentRequest.contents[${index}]: function response ${String(response['name'])} answers no function call of the previous turn\n`,
      );
    }
    open.splice(at, 1);
  }
}

const MODEL_VERSION = 'gemini-2.5-flash';

/**
 * A stand-in for the encrypted signature Gemini 3 puts on the first call of an answer: the protobuf
 * framing real ones start with, then `size` pseudo-random bytes from `seed`, as base64 (about the
 * size of a real one after some 200 thought tokens by default).
 */
export function mockThoughtSignature(seed: string, size = 730): string {
  const bytes = Buffer.alloc(size + 3);
  let block = createHash('sha256').update(seed).digest();
  for (let at = 3; at < bytes.length; at += block.length) {
    block.copy(bytes, at);
    block = createHash('sha256').update(block).digest();
  }
  bytes[0] = 0x12;
  bytes[1] = (size & 0x7f) | 0x80;
  bytes[2] = size >> 7;
  return bytes.toString('base64');
}

/** The answer's functionCall parts; `signature`, when given, goes on the first, as Gemini 3 does. */
function callParts(reply: ScriptedReply, signature?: string): Record<string, unknown>[] {
  return (reply.toolCalls ?? []).map((call, index) => {
    const functionCall: Record<string, unknown> = {
      name: call.name,
      args: JSON.parse(argumentsText(call) || '{}'),
    };
    if (call.id !== undefined) functionCall['id'] = call.id;
    return index === 0 && signature !== undefined
      ? { functionCall, thoughtSignature: signature }
      : { functionCall };
  });
}

/**
 * The script's usage as usageMetadata (cached tokens inside `promptTokenCount`, as Gemini counts
 * them; `cachedContentTokenCount` absent when the script gives none) or the rough one.
 */
function usageOf(reply: ScriptedReply): Record<string, number> {
  const out =
    reply.usage?.outputTokens ??
    roughTokens((reply.text ?? '') + (reply.toolCalls ?? []).map(argumentsText).join(''));
  const prompt = reply.usage?.inputTokens ?? SCRIPTED_PROMPT_TOKENS;
  const usage: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: out,
    totalTokenCount: prompt + out,
  };
  const cached = reply.usage?.cacheReadTokens;
  if (cached !== undefined) usage['cachedContentTokenCount'] = cached;
  return usage;
}

/**
 * A GenerateContentResponse answering with the script: text, then a functionCall part per call, the
 * first signed when `signature` is given.
 */
export function scriptedGenerateContent(reply: ScriptedReply, signature?: string): Record<string, unknown> {
  const parts: unknown[] = reply.text !== undefined && reply.text !== '' ? [{ text: reply.text }] : [];
  parts.push(...callParts(reply, signature));
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageOf(reply),
    modelVersion: MODEL_VERSION,
    responseId: 'scriptedResponse1',
  };
}

/** The same answer as alt=sse events: text in pieces, each call whole in its own chunk, then the finish. */
export function scriptedGenerateContentEvents(reply: ScriptedReply, signature?: string): string[] {
  const chunk = (parts: unknown[], last: boolean) => {
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
    if (last) candidate['finishReason'] = 'STOP';
    const body: Record<string, unknown> = {
      candidates: [candidate],
      modelVersion: MODEL_VERSION,
      responseId: 'scriptedResponse1',
    };
    if (last) body['usageMetadata'] = usageOf(reply);
    return `data: ${JSON.stringify(body)}\r\n\r\n`;
  };
  const pieces: unknown[][] = [];
  if (reply.text !== undefined && reply.text !== '') {
    for (const text of fragmentsOf(reply.text, reply.fragmentSize)) pieces.push([{ text }]);
  }
  for (const part of callParts(reply, signature)) pieces.push([part]);
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  return pieces.map((parts, index) => chunk(parts, index === pieces.length - 1));
}
