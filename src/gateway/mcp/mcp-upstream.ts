import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerSettings } from '../../config/config-types.ts';
import { MAX_TOOLS_PER_SERVER } from '../domain/mcp-tools.ts';
import { McpUpstreamError, toUpstreamError } from './mcp-upstream-error.ts';

export interface McpUpstreamOptions {
  callTimeoutMs: number;
  listTimeoutMs: number;
  listCacheMs: number;
  /** How the gateway names itself to upstream servers. */
  clientInfo: Implementation;
  /** Told of each list an upstream gave (the metrics' known tool names). */
  onListed?: (server: string, tools: readonly string[]) => void;
  now: () => number;
}

const MAX_LIST_PAGES = 20;
/** After a failed listing, listings skip the server this long rather than each wait for it again. */
const FAILED_LIST_PAUSE_MS = 3_000;
/** How long closing waits for a server to hear that its session ended. */
const CLOSE_WAIT_MS = 1_000;

/**
 * One upstream MCP server, reached with the SDK's Client over Streamable HTTP: one connection
 * (and the server's session, when it keeps one) shared by every app's calls, made on first use and
 * made again when it breaks (the server restarted and forgot the session, or could not be reached).
 * Its tool list is kept `listCacheMs`; a listing waits `listTimeoutMs` at most, while the refresh
 * goes on in the background within the call bound and fills the cache when it ends.
 */
export class McpUpstream {
  readonly name: string;
  readonly #settings: McpServerSettings;
  readonly #options: McpUpstreamOptions;
  /** The shared connection: its client and transport at once, and when it is ready. */
  #connection:
    | { client: Client; transport: StreamableHTTPClientTransport; ready: Promise<Client> }
    | undefined;
  #list: { tools: Tool[]; at: number } | undefined;
  #refresh: Promise<Tool[]> | undefined;
  #failedAt: number | undefined;
  #closed = false;

  constructor(settings: McpServerSettings, options: McpUpstreamOptions) {
    this.name = settings.name;
    this.#settings = settings;
    this.#options = options;
  }

  /** The names this server listed last (empty before its first listing). */
  get knownTools(): readonly Tool[] {
    return this.#list?.tools ?? [];
  }

  /**
   * The server's tools, from the cache while it is fresh; undefined when the server could not be
   * listed within the listing bound (down, slow, or it failed moments ago): the listing skips it.
   */
  async tools(): Promise<Tool[] | undefined> {
    const now = this.#options.now();
    const cached = this.#list;
    if (cached !== undefined && now - cached.at < this.#options.listCacheMs) return cached.tools;
    if (this.#failedAt !== undefined && now - this.#failedAt < FAILED_LIST_PAUSE_MS) return undefined;
    this.#refresh ??= this.#fetchList().finally(() => {
      this.#refresh = undefined;
    });
    return withinMs(this.#refresh, this.#options.listTimeoutMs).catch(() => undefined);
  }

  /**
   * Calls one tool. Resolves the server's result as it is (an `isError` result included); rejects
   * with McpUpstreamError when the server cannot be reached, fails, or has not answered within the
   * call bound, and with the signal's reason when `signal` (the client leaving) aborts first.
   */
  async call(
    tool: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const deadline = AbortSignal.timeout(this.#options.callTimeoutMs);
    const both = AbortSignal.any([signal, deadline]);
    try {
      return await this.#withClient(both, async (client) => {
        const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
        return (await client.callTool(params, undefined, {
          signal: both,
          timeout: this.#options.callTimeoutMs,
        })) as CallToolResult;
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (deadline.aborted) throw McpUpstreamError.timeout(this.name, this.#options.callTimeoutMs);
      throw toUpstreamError(this.name, error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection === undefined) return;
    // A server that keeps sessions is told this one ended (DELETE), briefly: it may be down.
    const connected = await withinMs(connection.ready, CLOSE_WAIT_MS).catch(() => undefined);
    if (connected !== undefined)
      await withinMs(connection.transport.terminateSession(), CLOSE_WAIT_MS).catch(() => {});
    await connection.client.close().catch(() => {});
  }

  async #fetchList(): Promise<Tool[]> {
    const bound = AbortSignal.timeout(this.#options.callTimeoutMs);
    try {
      const tools = await this.#withClient(bound, (client) => listAll(client, bound));
      this.#list = { tools, at: this.#options.now() };
      this.#failedAt = undefined;
      this.#options.onListed?.(
        this.name,
        tools.map((tool) => tool.name),
      );
      return tools;
    } catch (error) {
      this.#failedAt = this.#options.now();
      throw error;
    }
  }

  /**
   * Runs `work` on the shared connection. When the connection turns out stale (the server forgot
   * its session: 404; or refused the connection, so the request never reached it), it is dropped
   * and `work` runs once more on a new one; any other failure drops it for the next caller.
   */
  async #withClient<T>(signal: AbortSignal, work: (client: Client) => Promise<T>): Promise<T> {
    const client = await whenSignalled(this.#connect(), signal);
    try {
      return await work(client);
    } catch (error) {
      if (signal.aborted || !isConnectionFailure(error)) throw error;
      this.#drop(client);
      if (!isUndelivered(error)) throw error;
      return work(await whenSignalled(this.#connect(), signal));
    }
  }

  #connect(): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error('the gateway is closing'));
    if (this.#connection !== undefined) return this.#connection.ready;
    const client = new Client(this.#options.clientInfo, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(this.#settings.url), {
      requestInit: { headers: this.#settings.headers },
      fetch: boundedFetch(this.#options.callTimeoutMs),
    });
    // A client whose transport closed (its server went away) is not used again.
    client.onclose = () => this.#forget(client);
    const ready = client.connect(transport, { timeout: this.#options.callTimeoutMs }).then(
      () => client,
      async (error: unknown) => {
        this.#forget(client);
        await client.close().catch(() => {});
        throw error;
      },
    );
    this.#connection = { client, transport, ready };
    return ready;
  }

  #drop(client: Client): void {
    this.#forget(client);
    void client.close().catch(() => {});
  }

  /** The next caller connects anew, unless another connection has replaced this one already. */
  #forget(client: Client): void {
    if (this.#connection?.client === client) this.#connection = undefined;
  }
}

async function listAll(client: Client, signal: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal });
    tools.push(...answer.tools.slice(0, MAX_TOOLS_PER_SERVER - tools.length));
    cursor = answer.nextCursor;
    if (cursor === undefined || tools.length >= MAX_TOOLS_PER_SERVER) break;
  }
  return tools;
}

/**
 * The transport's fetch with a bound on each POST, so that a request the gateway gave up on (a
 * call past its bound) does not hold a connection for as long as the server likes. The GET of
 * the server's own event stream stays open.
 */
function boundedFetch(ms: number): typeof fetch {
  return (input, init) => {
    if (init?.method !== 'POST') return fetch(input, init);
    const bound = AbortSignal.timeout(ms + 1_000);
    const signal = init.signal ? AbortSignal.any([init.signal, bound]) : bound;
    return fetch(input, { ...init, signal });
  };
}

/** The connection itself failed (rather than the server answering an error). */
function isConnectionFailure(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError ||
    (error instanceof TypeError && error.message === 'fetch failed') ||
    isClosedClient(error)
  );
}

/** A failure that proves the request never reached a live session: safe to send again. */
function isUndelivered(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  if (isClosedClient(error)) return true;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

/** The SDK's client refuses a request at once when its transport has closed (the server went away). */
function isClosedClient(error: unknown): boolean {
  return error instanceof Error && error.message === 'Not connected';
}

/** Waits for `promise`, or rejects when `signal` aborts first (the promise goes on for others). */
function whenSignalled<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  return whenSignalled(promise, AbortSignal.timeout(ms));
}
