/**
 * OpenAPI descriptions of the /mcp routes. They document the HTTP side of the protocol only; the
 * JSON-RPC methods and tool schemas are discovered with `tools/list` (or the server card).
 */
const JsonRpcId = { type: ['string', 'integer'], description: 'Request id, echoed in the response' };

const JsonRpcMessage = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: JsonRpcId,
    method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call', 'ping'] },
    params: { type: 'object', additionalProperties: true },
  },
  additionalProperties: true,
};

const JsonRpcResponse = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: ['string', 'integer', 'null'] },
    result: { type: 'object', additionalProperties: true },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
  },
  additionalProperties: true,
};

const jsonRpcError = (description: string) => ({
  description,
  content: { 'application/json': { schema: JsonRpcResponse } },
});

export const mcpRouteSchemas = {
  post: {
    tags: ['mcp'],
    summary: 'Send a JSON-RPC message to the MCP server',
    description:
      'Model Context Protocol over streamable HTTP, stateless (no Mcp-Session-Id) and public. Methods: initialize, ping, tools/list, tools/call. Protocol revisions 2025-03-26, 2025-06-18 and 2025-11-25 are negotiated by initialize. Requests from a browser must come from an allowed Origin.',
    operationId: 'mcp',
    headers: {
      type: 'object',
      properties: {
        'mcp-protocol-version': {
          type: 'string',
          description: 'Negotiated revision, on every request after initialize',
        },
      },
    },
    body: {
      description: 'One JSON-RPC message, or a batch',
      oneOf: [JsonRpcMessage, { type: 'array', items: JsonRpcMessage, minItems: 1 }],
    },
    response: {
      200: {
        description: 'JSON-RPC response (an array for a batch)',
        content: {
          'application/json': {
            schema: { oneOf: [JsonRpcResponse, { type: 'array', items: JsonRpcResponse }] },
          },
        },
      },
      202: { description: 'Accepted: the message held only notifications or responses', type: 'null' },
      400: jsonRpcError('Parse error (-32700), invalid JSON-RPC, or an unsupported MCP-Protocol-Version'),
      403: jsonRpcError('The Origin header names an origin that is not allowed'),
      406: jsonRpcError('Accept does not list both application/json and text/event-stream'),
      413: jsonRpcError('Body too large'),
      415: jsonRpcError('Content-Type is not application/json'),
    },
  },
  notAllowed: (method: 'GET' | 'DELETE') => ({
    tags: ['mcp'],
    summary:
      method === 'GET'
        ? 'Not supported: this stateless server offers no server-to-client SSE stream'
        : 'Not supported: this stateless server has no session to end',
    operationId: method === 'GET' ? 'mcpStream' : 'mcpEndSession',
    response: { 405: jsonRpcError('Method not allowed; the Allow header says POST') },
  }),
  preflight: {
    tags: ['mcp'],
    summary: 'CORS preflight for browser clients on an allowed origin',
    operationId: 'mcpPreflight',
    response: {
      204: { description: 'Preflight accepted', type: 'null' },
      403: jsonRpcError('Origin not allowed'),
    },
  },
};
