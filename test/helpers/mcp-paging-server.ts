import { createServer, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

export interface PagingOptions {
  /** How many tools the server has: `tool_0000`, `tool_0001`… */
  tools: number;
  pageSize: number;
  /** Never ends: every page names a next one (past the last tool, the first page again). */
  endless?: boolean;
}

/**
 * An upstream MCP server that pages its tools/list as MCP allows (`nextCursor`), which the SDK's
 * McpServer does not do by itself: the SDK's low-level Server, stateless, a page of `pageSize`
 * tools per request, the cursor being the index of the next tool. It counts the pages it served
 * and answers a call of any of its tools with the tool's name.
 */
export class McpPagingServer {
  pagesServed = 0;
  readonly #options: PagingOptions;
  #server: HttpServer | undefined;
  #port = 0;

  constructor(options: PagingOptions) {
    this.#options = options;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      void this.#handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  async #handle(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const server = new Server({ name: 'paging', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (list) => this.#page(list.params?.cursor));
    server.setRequestHandler(CallToolRequestSchema, (call) => ({
      content: [{ type: 'text', text: `called ${call.params.name}` }],
    }));
    // No sessionIdGenerator: stateless.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  #page(cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
    this.pagesServed++;
    const { tools, pageSize, endless } = this.#options;
    // `12` names tool 12; an endless server's `0#5` starts over (a cursor not given before).
    const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10);
    const end = Math.min(tools, start + pageSize);
    const page: Tool[] = [];
    for (let index = start; index < end; index++)
      page.push({
        name: `tool_${String(index).padStart(4, '0')}`,
        description: `Tool number ${index}.`,
        inputSchema: { type: 'object' },
      });
    if (end < tools) return { tools: page, nextCursor: String(end) };
    // An endless server starts over, with a cursor it never gave before.
    return endless === true ? { tools: page, nextCursor: `0#${this.pagesServed}` } : { tools: page };
  }
}
