import { Type } from 'typebox';
import { AnyJson } from '../../../platform/schema-helpers.ts';

/**
 * How /mcp appears in the gateway's OpenAPI document. The SDK, not Fastify, reads the body
 * and writes the answers of POST /mcp, so the body schema is documentation only (the route
 * validates nothing with it) and a 200's text is sent as the SDK wrote it. The refusals the
 * door's error handler writes (401, 405, 413, 503…) are serialised with JsonRpcError, so it
 * names every field mcpErrorBody writes.
 */
const JsonRpcId = Type.Union([Type.String(), Type.Integer()]);
const AnswerId = Type.Union([Type.String(), Type.Integer(), Type.Null()], {
  description: 'null for a refusal of the whole POST',
});

const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: Type.Object({
      code: Type.Integer({ description: 'JSON-RPC error code: -32000 for a refusal, -32603 internal' }),
      message: Type.String(),
      data: Type.Optional(AnyJson()),
    }),
    id: AnswerId,
  },
  { description: 'A JSON-RPC error' },
);

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(JsonRpcId),
    method: Type.String({
      description: 'initialize, notifications/initialized, ping, tools/list or tools/call',
    }),
    params: Type.Optional(Type.Record(Type.String(), AnyJson())),
  },
  {
    description:
      'One JSON-RPC message of MCP (Streamable HTTP). tools/call takes params {name: "server__tool", arguments}',
  },
);

const JsonRpcAnswer = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: AnswerId,
    result: Type.Optional(
      AnyJson({
        description:
          'tools/list: {tools}, each named server__tool, those the allow list names, in name order; tools/call: the tool result (isError with a text when a limit refused the call or its server failed or timed out)',
      }),
    ),
    error: Type.Optional(JsonRpcError.properties.error),
  },
  { description: 'A JSON-RPC response' },
);

const refusal = (description: string) => ({
  description,
  content: { 'application/json': { schema: JsonRpcError } },
});

/** The headers of contract 5.8 on a tool call's answer, as the native API sends them. */
const limitStateHeaders = {
  'x-ratelimit-limit-requests': {
    type: 'string',
    description: "The app's requests per minute (when it has that limit)",
  },
  'x-ratelimit-remaining-requests': { type: 'string', description: 'Requests left in this minute' },
  'x-ratelimit-reset-requests': { type: 'string', description: 'Until the minute resets, as 1s or 250ms' },
} as const;

const SUMMARY = 'MCP gateway: the tools of upstream MCP servers this app may call (Streamable HTTP)';
const DESCRIPTION =
  "A stateless MCP server (no Mcp-Session-Id): each POST carries one JSON-RPC message and is answered with JSON. tools/list names the tools the app's allow list (mcp.allow, from the file or the admin API) names, bounded by its team's, as server__tool; tools/call runs one, counted toward the app's request limits and recorded in the ledger (operation mcp_tool). initialize and tools/list are neither limited nor recorded. Send the Accept header \"application/json, text/event-stream\" and MCP-Protocol-Version after initialize, as MCP clients do.";

/** POST /mcp: no validation (the SDK answers a malformed message with its own JSON-RPC error). */
export const MCP_POST_SCHEMA = {
  summary: SUMMARY,
  description: DESCRIPTION,
  operationId: 'mcp',
  body: JsonRpcMessage,
  response: {
    200: {
      description:
        "The JSON-RPC response to the message; a tools/call's answer carries the app's limit state (x-ratelimit-*-requests, and the tokens triple when the app has a token limit)",
      headers: limitStateHeaders,
      content: { 'application/json': { schema: JsonRpcAnswer } },
    },
    202: { description: 'A notification or response accepted; no body', type: 'null' },
    400: refusal('Not JSON (-32700) or not a JSON-RPC message (-32600), as the MCP SDK answers'),
    401: refusal('Missing or invalid app credentials'),
    406: refusal('The Accept header does not list both application/json and text/event-stream'),
    413: refusal('Request body past mcp.maxBodyBytes'),
    415: refusal('The body is not application/json'),
    500: refusal('Internal error'),
    503: refusal('The usage ledger is behind; see Retry-After'),
  },
} as const;

/** GET and DELETE /mcp: a stateless server has no stream to open and no session to end. */
export function mcpMethodNotAllowedSchema(method: 'GET' | 'DELETE') {
  return {
    summary: `${method} /mcp: not supported (405, Allow: POST)`,
    description:
      method === 'GET'
        ? 'The gateway opens no server-to-client event stream: it is a stateless MCP server.'
        : 'The gateway keeps no MCP session to end: it is a stateless MCP server.',
    operationId: method === 'GET' ? 'mcpStream' : 'mcpEndSession',
    response: {
      401: refusal('Missing or invalid app credentials'),
      405: {
        ...refusal('Always: POST is the one method'),
        headers: { allow: { type: 'string', const: 'POST' } },
      },
    },
  } as const;
}
