import {
  budgetForEffort,
  effortForBudget,
  MediaTally,
  type ReasoningRequest,
} from '../../domain/content-parts.ts';
import type { ToolChoice, ToolDefinition } from '../../domain/messages.ts';
import type { ChatInput, JsonInput } from '../../domain/use-case-inputs.ts';
import type { DoorChatRequest } from '../chat-door.ts';
import { refuseGeminiField } from './gemini-refusal.ts';
import { toJsonSchema } from './gemini-schema.ts';
import { readGeminiContents } from './read-gemini-contents.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A generateContent request in the gateway's words, and what its answer needs. */
export type GeminiRequest = DoorChatRequest & {
  model: string;
  /** The fields with no counterpart on another vendor, left out (`x-gateway-ignored-fields`). */
  ignored: string[];
  /** `?alt=sse` on a stream; a stream without it is a JSON array written as it is produced. */
  sse: boolean;
};

/** The top-level fields read; anything else is named as ignored. */
const READ_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
/** generationConfig's fields the cross-vendor lane carries. */
const GENERATION_FIELDS = new Set([
  'temperature',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  '_responseJsonSchema',
  'thinkingConfig',
]);

const LEVELS: Readonly<Record<string, ReasoningRequest['effort']>> = {
  MINIMAL: 'low',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

/**
 * Reads a GenerateContentRequest for the cross-vendor lane (CONTRACT 6.3): contents and system
 * instruction, function declarations (`parameters` as Google's Schema, or `parametersJsonSchema`)
 * and the tool config, and the generation config: temperature, maxOutputTokens, stopSequences,
 * candidateCount 1, a JSON `responseMimeType` with a schema as structured output, thinkingConfig
 * as the request's reasoning. What another vendor has no counterpart for (safety settings,
 * cached content, topP, topK, hosted tools, …) is left out and named in `ignored`.
 */
export function readGeminiRequest(
  body: unknown,
  model: string,
  stream: boolean,
  sse: boolean,
): GeminiRequest {
  if (!isObject(body)) throw refuseGeminiField('body', 'must be a GenerateContentRequest object');
  const ignored: string[] = [];
  for (const key of Object.keys(body)) if (!READ_FIELDS.has(key)) ignored.push(key);
  const messages = readGeminiContents(body['contents'], body['systemInstruction'], new MediaTally());
  const config = body['generationConfig'] ?? {};
  if (!isObject(config)) throw refuseGeminiField('generationConfig', 'must be an object');
  for (const key of Object.keys(config))
    if (!GENERATION_FIELDS.has(key)) ignored.push(`generationConfig.${key}`);
  const candidates = config['candidateCount'];
  if (candidates !== undefined && candidates !== 1)
    throw refuseGeminiField(
      'generationConfig.candidateCount',
      'only 1 candidate is supported by this gateway',
    );
  const temperature = optionalNumber(config, 'temperature');
  const common = { model, stream, sse, ignored, metadata: undefined };
  const schema = responseSchemaOf(config);
  if (schema !== undefined) {
    if (hasDeclarations(body['tools']))
      throw refuseGeminiField(
        'generationConfig.responseSchema',
        'cannot be combined with function declarations on this gateway',
      );
    const input: JsonInput = { messages, schema, temperature };
    return { ...common, use: 'json', input };
  }
  const input: ChatInput = { messages, temperature };
  const maxTokens = optionalNumber(config, 'maxOutputTokens');
  if (maxTokens !== undefined) input.maxTokens = maxTokens;
  const stop = config['stopSequences'];
  if (stop !== undefined) {
    if (!Array.isArray(stop) || !stop.every((item) => typeof item === 'string'))
      throw refuseGeminiField('generationConfig.stopSequences', 'must be a list of strings');
    if (stop.length > 0) input.stop = stop;
  }
  const reasoning = readThinking(config['thinkingConfig']);
  if (reasoning !== undefined) input.reasoning = reasoning;
  const tools = readTools(body['tools'], ignored);
  if (tools.length > 0) input.tools = tools;
  const choice = readToolConfig(body['toolConfig'], ignored);
  if (choice !== undefined) input.toolChoice = choice;
  return { ...common, use: 'chat', input };
}

function optionalNumber(config: Json, key: string): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw refuseGeminiField(`generationConfig.${key}`, 'must be a number');
  return value;
}

/** A JSON answer: its schema (JSON Schema, or Google's Schema written as one), else undefined. */
function responseSchemaOf(config: Json): Record<string, unknown> | undefined {
  const mime = config['responseMimeType'];
  const jsonSchema = config['responseJsonSchema'] ?? config['_responseJsonSchema'];
  const schema = config['responseSchema'];
  if (mime === undefined || mime === 'text/plain') {
    if (jsonSchema !== undefined || schema !== undefined)
      throw refuseGeminiField(
        'generationConfig.responseMimeType',
        "must be 'application/json' with a response schema",
      );
    return undefined;
  }
  if (mime !== 'application/json')
    throw refuseGeminiField(
      'generationConfig.responseMimeType',
      "only 'text/plain' and 'application/json' are supported",
    );
  if (isObject(jsonSchema)) return jsonSchema;
  if (isObject(schema)) return toJsonSchema(schema) as Record<string, unknown>;
  // JSON of any shape: the structured-output use case checks that it parses.
  return {};
}

function readThinking(value: unknown): ReasoningRequest | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw refuseGeminiField('generationConfig.thinkingConfig', 'must be an object');
  const budget = value['thinkingBudget'];
  const level = value['thinkingLevel'];
  if (typeof level === 'string' && LEVELS[level] !== undefined) {
    const effort = LEVELS[level];
    return { effort, budgetTokens: budgetForEffort(effort) };
  }
  if (typeof budget === 'number' && budget > 0)
    return { effort: effortForBudget(budget), budgetTokens: budget };
  // 0 turns thinking off; -1 is dynamic, and includeThoughts without a budget is `medium` (6.9).
  if (budget === 0) return undefined;
  if (budget === -1 || value['includeThoughts'] === true) return { effort: 'medium' };
  return undefined;
}

function hasDeclarations(tools: unknown): boolean {
  return (
    Array.isArray(tools) &&
    tools.some((tool) => isObject(tool) && Array.isArray(tool['functionDeclarations']))
  );
}

function readTools(tools: unknown, ignored: string[]): ToolDefinition[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw refuseGeminiField('tools', 'must be a list of Tool');
  const out: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    if (!isObject(tool)) throw refuseGeminiField(`tools[${index}]`, 'must be a Tool');
    for (const key of Object.keys(tool))
      if (key !== 'functionDeclarations') ignored.push(`tools[${index}].${key}`);
    const declarations = tool['functionDeclarations'];
    if (declarations === undefined) return;
    if (!Array.isArray(declarations))
      throw refuseGeminiField(`tools[${index}].functionDeclarations`, 'must be a list');
    declarations.forEach((declaration, position) => {
      const at = `tools[${index}].functionDeclarations[${position}]`;
      if (!isObject(declaration) || typeof declaration['name'] !== 'string')
        throw refuseGeminiField(at, 'must be a FunctionDeclaration with a name');
      const parameters =
        declaration['parametersJsonSchema'] ??
        toJsonSchema(declaration['parameters'] ?? { type: 'OBJECT', properties: {} });
      if (!isObject(parameters)) throw refuseGeminiField(`${at}.parameters`, 'must be a schema object');
      const definition: ToolDefinition = { name: declaration['name'], parameters };
      if (typeof declaration['description'] === 'string') definition.description = declaration['description'];
      out.push(definition);
    });
  });
  return out;
}

function readToolConfig(value: unknown, ignored: string[]): ToolChoice | undefined {
  if (value === undefined) return undefined;
  const config = isObject(value) ? value['functionCallingConfig'] : undefined;
  if (!isObject(config)) {
    ignored.push('toolConfig');
    return undefined;
  }
  const allowed = config['allowedFunctionNames'];
  const names = Array.isArray(allowed)
    ? allowed.filter((name): name is string => typeof name === 'string')
    : [];
  switch (config['mode']) {
    case 'NONE':
      return 'none';
    case 'ANY':
      if (names.length === 1) return { name: names[0] as string };
      if (names.length > 1) ignored.push('toolConfig.functionCallingConfig.allowedFunctionNames');
      return 'required';
    default:
      if (names.length > 0) ignored.push('toolConfig.functionCallingConfig.allowedFunctionNames');
      return config['mode'] === undefined ? undefined : 'auto';
  }
}
