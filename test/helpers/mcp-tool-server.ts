import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * A small upstream MCP server built with the SDK's McpServer, over Streamable HTTP with sessions
 * (as many servers keep them), for the MCP gateway's tests. Its tools: `echo` (answers its text),
 * `slow` (answers after `ms`), `fail` (a result with isError). It can be stopped and started again
 * on the same port, forgetting its sessions as a restarted server does; it counts the calls it got
 * and the Authorization headers it saw, and answers tools/list after `listDelayMs` (a slow server).
 */
export class McpToolServer {
  calls = 0;
  /** Calls of `slow` the client cancelled (notifications/cancelled) before they ended. */
  cancelled = 0;
  listDelayMs = 0;
  readonly authorizations: (string | undefined)[] = [];
  #server: Server | undefined;
  #port = 0;
  readonly #sessions = new Map<string, StreamableHTTPServerTransport>();

  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      this.authorizations.push(request.headers.authorization);
      void this.#handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.#port, '127.0.0.1', resolve));
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening and forgets every session, as a server that goes down does. */
  async stop(): Promise<void> {
    for (const transport of this.#sessions.values()) await transport.close();
    this.#sessions.clear();
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) {
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (this.listDelayMs > 0 && (body as { method?: unknown } | undefined)?.method === 'tools/list')
      await new Promise((resolve) => setTimeout(resolve, this.listDelayMs));
    const sessionId = request.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    if (known !== undefined) return known.handleRequest(request, response, body);
    if (typeof sessionId === 'string') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
      );
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, transport);
      },
    });
    await this.#newServer().connect(transport);
    await transport.handleRequest(request, response, body);
  }

  #newServer(): McpServer {
    const server = new McpServer({ name: 'kit', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Answers its text.', inputSchema: { text: z.string() } },
      ({ text }) => {
        this.calls++;
        return { content: [{ type: 'text', text: `echo: ${text}` }] };
      },
    );
    server.registerTool(
      'slow',
      { description: 'Answers after ms milliseconds.', inputSchema: { ms: z.number().int().min(0) } },
      async ({ ms }, extra) => {
        this.calls++;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          extra.signal.addEventListener('abort', () => {
            this.cancelled++;
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
      },
    );
    server.registerTool('fail', { description: 'Always fails.' }, () => {
      this.calls++;
      return { content: [{ type: 'text', text: 'it failed, as it always does' }], isError: true };
    });
    return server;
  }
}

async function readJson(request: import('node:http').IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
