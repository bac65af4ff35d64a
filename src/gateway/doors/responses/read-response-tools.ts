import type { ToolChoice, ToolDefinition } from '../../domain/messages.ts';
import { refuseField } from '../openai-refusal.ts';
import { isObject, type JsonObject } from '../request-fields.ts';

/**
 * What the answer needs to know of a tool the upstream was given under `upstreamName`: a
 * `custom` tool (its call is answered as a `custom_tool_call` with the free-form `input`) or a
 * function, possibly a member of a `namespace` (its call names `name` and `namespace` apart).
 */
export interface ToolOrigin {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string | undefined;
}

export interface ReadTools {
  /** What the upstream is given. */
  definitions: ToolDefinition[];
  /** By the name the upstream knows, where it differs from a plain function's. */
  origins: Map<string, ToolOrigin>;
  /** The hosted tool types left out (CONTRACT 5.4), each once, in the order sent. */
  ignored: string[];
}

/**
 * The one string argument a `custom` tool is carried as: the upstreams know only JSON-argument
 * functions, so the free-form input (Codex's apply_patch text) travels as `{"input": "…"}`.
 */
export const CUSTOM_INPUT_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of the tool, as free-form text.' } },
  required: ['input'],
  additionalProperties: false,
};

/** What a hosted tool's type looks like (`web_search`, `image_generation`, `web_search_preview_2025_03_11`). */
const HOSTED_TOOL_TYPE = /^[a-z][a-z0-9_.-]{0,63}$/;
/** Distinct hosted tool types one request may name (OpenAI has about a dozen). */
const MAX_IGNORED_TYPES = 32;

/** The name a namespace member is given upstream, where names are one flat list. */
export function flatName(namespace: string, name: string): string {
  return namespace.endsWith('_') ? `${namespace}${name}` : `${namespace}__${name}`;
}

/**
 * Reads `tools`: `function` and `custom` as they are, `namespace` members flattened; every other
 * type is a tool hosted by OpenAI (web_search, file_search, code_interpreter, image_generation,
 * local_shell, tool_search, computer_use…) that no slot runs: left out and named in
 * `x-gateway-ignored-tools`, never a 400, since Codex and the Agents SDK send some by default.
 */
export function readResponseTools(value: unknown): ReadTools {
  const read: ReadTools = { definitions: [], origins: new Map(), ignored: [] };
  if (value === undefined || value === null) return read;
  if (!Array.isArray(value)) throw refuseField('/tools', 'must be an array');
  value.forEach((tool: unknown, index) => {
    const at = `/tools/${index}`;
    if (!isObject(tool) || typeof tool['type'] !== 'string')
      throw refuseField(`${at}/type`, 'must be a string');
    switch (tool['type']) {
      case 'function':
        read.definitions.push(functionDefinition(tool, at));
        break;
      case 'custom': {
        const name = nameOf(tool, at);
        read.definitions.push(withDescription({ name, parameters: CUSTOM_INPUT_PARAMETERS }, tool, at));
        read.origins.set(name, { kind: 'custom', name });
        break;
      }
      case 'namespace':
        readNamespace(tool, at, read);
        break;
      default: {
        // The type is named in a response header: a name of a hosted tool's form, and a bounded
        // list of them, or a client could put any byte or any length there.
        const type = tool['type'];
        if (!HOSTED_TOOL_TYPE.test(type))
          throw refuseField(
            `${at}/type`,
            'must be function, custom, namespace or a hosted tool type (lowercase letters, digits, _ . -; at most 64 characters)',
          );
        if (read.ignored.includes(type)) break;
        if (read.ignored.length >= MAX_IGNORED_TYPES)
          throw refuseField(`${at}/type`, `at most ${MAX_IGNORED_TYPES} hosted tool types in one request`);
        read.ignored.push(type);
      }
    }
  });
  return read;
}

function readNamespace(tool: JsonObject, at: string, read: ReadTools): void {
  const namespace = nameOf(tool, at);
  const members = tool['tools'];
  if (!Array.isArray(members)) throw refuseField(`${at}/tools`, 'must be an array');
  members.forEach((member: unknown, index) => {
    const memberAt = `${at}/tools/${index}`;
    if (!isObject(member) || (member['type'] !== 'function' && member['type'] !== 'custom')) {
      throw refuseField(`${memberAt}/type`, "a namespace holds 'function' or 'custom' tools");
    }
    const name = nameOf(member, memberAt);
    const flat = flatName(namespace, name);
    if (member['type'] === 'custom') {
      read.definitions.push(
        withDescription({ name: flat, parameters: CUSTOM_INPUT_PARAMETERS }, member, memberAt),
      );
      read.origins.set(flat, { kind: 'custom', name, namespace });
    } else {
      read.definitions.push(functionDefinition({ ...member, name: flat }, memberAt));
      read.origins.set(flat, { kind: 'function', name, namespace });
    }
  });
}

function functionDefinition(tool: JsonObject, at: string): ToolDefinition {
  const name = nameOf(tool, at);
  const parameters = tool['parameters'];
  if (parameters !== undefined && parameters !== null && !isObject(parameters)) {
    throw refuseField(`${at}/parameters`, 'must be a JSON Schema object');
  }
  // As on Chat Completions: a function without parameters takes none.
  const definition: ToolDefinition = {
    name,
    parameters: (parameters as JsonObject | null | undefined) ?? { type: 'object', properties: {} },
  };
  return withDescription(definition, tool, at);
}

function nameOf(tool: JsonObject, at: string): string {
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') throw refuseField(`${at}/name`, 'must be a non-empty string');
  return name;
}

function withDescription(definition: ToolDefinition, tool: JsonObject, at: string): ToolDefinition {
  const description = tool['description'];
  if (description === undefined || description === null) return definition;
  if (typeof description !== 'string') throw refuseField(`${at}/description`, 'must be a string');
  return { ...definition, description };
}

/**
 * `tool_choice`: `auto`, `none`, `required`; a named `function` or `custom` tool (in a namespace,
 * its flat name); `allowed_tools` by its `mode`. A hosted tool's choice (`{type: "web_search"}`)
 * names a tool that was left out: the model chooses (`auto`).
 */
export function readToolChoice(value: unknown, tools: ReadTools): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') {
    return tools.definitions.length === 0 ? undefined : value;
  }
  if (!isObject(value) || typeof value['type'] !== 'string') {
    throw refuseField('/tool_choice', "must be 'auto', 'none', 'required' or a tool choice object");
  }
  if (tools.definitions.length === 0) return undefined;
  switch (value['type']) {
    case 'function':
    case 'custom': {
      const name = value['name'];
      if (typeof name !== 'string') throw refuseField('/tool_choice/name', 'must be a string');
      const namespace = value['namespace'];
      return { name: typeof namespace === 'string' ? flatName(namespace, name) : name };
    }
    case 'allowed_tools':
      return value['mode'] === 'required' ? 'required' : 'auto';
    default:
      return 'auto';
  }
}
