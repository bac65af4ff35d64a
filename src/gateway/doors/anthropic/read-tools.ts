import type { ToolChoice, ToolDefinition } from '../../domain/messages.ts';
import {
  type FieldPath,
  invalidField,
  isObject,
  optional,
  readArray,
  readBoolean,
  readNonEmptyString,
  readObject,
  readString,
} from '../request-fields.ts';

/**
 * Anthropic's `tools` and `tool_choice` onto the gateway's. Only client tools (`{name,
 * description?, input_schema}`, `type` absent or `custom`) can be carried to every upstream; a
 * server or built-in tool (`web_search_…`, `bash_…`, `text_editor_…`, code execution, MCP
 * toolsets) would change the answer and is a 400. Fields that only tune how Anthropic itself
 * serves a tool (`cache_control`, `strict`, `eager_input_streaming`, `defer_loading`,
 * `input_examples`, `allowed_callers`) are ignored.
 */

export interface ToolSelection {
  tools: ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
  /** `disable_parallel_tool_use: true`: the answer keeps at most its first tool call. */
  singleToolCall: boolean;
}

export function readToolSelection(tools: unknown, choice: unknown): ToolSelection {
  const definitions = tools === undefined || tools === null ? undefined : readTools(tools, ['tools']);
  const selection: ToolSelection = { tools: definitions, toolChoice: undefined, singleToolCall: false };
  if (choice === undefined || choice === null) return selection;
  const object = readObject(choice, ['tool_choice']);
  const type = object.type;
  const path: FieldPath = ['tool_choice'];
  if (type === 'none') {
    selection.toolChoice = 'none';
    return selection;
  }
  if (type === 'auto') selection.toolChoice = 'auto';
  else if (type === 'any') selection.toolChoice = 'required';
  else if (type === 'tool') {
    const name = readNonEmptyString(object.name, [...path, 'name']);
    if (!definitions?.some((tool) => tool.name === name)) {
      throw invalidField([...path, 'name'], `names no tool in tools (${name.slice(0, 128)})`);
    }
    selection.toolChoice = { name };
  } else throw invalidField([...path, 'type'], "must be 'auto', 'any', 'tool' or 'none'");
  if (type !== 'auto' && (definitions === undefined || definitions.length === 0)) {
    throw invalidField([...path, 'type'], `'${type}' needs tools`);
  }
  selection.singleToolCall = optional(object, 'disable_parallel_tool_use', path, readBoolean) === true;
  return selection;
}

function readTools(value: unknown, path: FieldPath): ToolDefinition[] {
  const items = readArray(value, path);
  const seen = new Set<string>();
  return items.map((item, index) => {
    const toolPath = [...path, index];
    const tool = readObject(item, toolPath);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      const type = typeof tool.type === 'string' ? tool.type.slice(0, 64) : typeof tool.type;
      throw invalidField(
        [...toolPath, 'type'],
        `'${type}' tools (server and built-in tools) are not supported by this gateway; only client tools with name and input_schema are`,
      );
    }
    const name = readNonEmptyString(tool.name, [...toolPath, 'name']);
    if (seen.has(name))
      throw invalidField(
        [...toolPath, 'name'],
        `repeats the name of an earlier tool (${name.slice(0, 128)})`,
      );
    seen.add(name);
    const schema = tool.input_schema;
    if (!isObject(schema)) throw invalidField([...toolPath, 'input_schema'], 'must be a JSON Schema object');
    if (schema.type !== 'object')
      throw invalidField([...toolPath, 'input_schema', 'type'], "must be 'object'");
    const definition: ToolDefinition = { name, parameters: schema };
    const description = optional(tool, 'description', toolPath, readString);
    if (description !== undefined) definition.description = description;
    return definition;
  });
}
