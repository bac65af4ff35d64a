import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/errors.ts';
import { splitToolName } from '../../domain/mcp-tools.ts';
import { blockedError, teamOf } from '../../http/guard-input.ts';
import type { McpGateway } from '../../mcp/mcp-gateway.ts';
import type { McpUpstream } from '../../mcp/mcp-upstream.ts';
import { toUpstreamError } from '../../mcp/mcp-upstream-error.ts';
import type { McpCallOutcome } from '../../observability/mcp-metrics.ts';
import { ClientClosedError } from '../../services/run/client-closed-error.ts';
import type { RequestRun } from '../../services/run/request-run.ts';
import { guardToolCall } from '../../services/use-cases/guard-tool-call.ts';
import type { RequestRuns } from '../serve-run.ts';
import type { McpServingDeps } from './mcp-serving-deps.ts';

/** What a client may send of a tools/call (the SDK has checked the shape). */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
}

const RUN_START = { operation: 'mcp_tool', frontDoor: 'mcp', task: undefined, metadata: undefined } as const;
const NO_TEXTS = { texts: [], maxOutputTokens: 0 } as const;
/** A name a client sent, as an error message repeats it. */
const MAX_ECHOED_NAME = 128;

/**
 * The tools/call requests of one POST /mcp. A call is checked before anything runs (a known
 * server, the app's allow list, the size of its arguments, the app's calls in progress), then
 * runs as a RequestRun of operation `mcp_tool` (front door `mcp`): admitted against the app's
 * limits, proxied to its server within the call bound, and finished with one ledger row (cost 0).
 * A refusal by a limit and a failing server are tool results with isError and a clear text, so
 * the client's session goes on; a call that is unknown, denied or too large is a JSON-RPC error.
 * Its runs start through the POST's `RequestRuns`, which `serveRuns` closes once the answer was
 * sent, as it closes every door's run.
 */
export class ToolCalls {
  readonly #request: FastifyRequest;
  readonly #runs: RequestRuns;
  readonly #deps: McpServingDeps;
  readonly #gateway: McpGateway;
  /**
   * The app's limit state as its last tool call of this POST left it (contract 5.8), for the
   * answer's headers: the admission's, or the refusal's without its Retry-After (the answer is a
   * 200 with a tool result; its text says when to retry). Empty when no call was admitted or
   * refused by a limit, or the app has no limits.
   */
  readonly limitHeaders: Record<string, string> = {};

  constructor(request: FastifyRequest, runs: RequestRuns, deps: McpServingDeps, gateway: McpGateway) {
    this.#request = request;
    this.#runs = runs;
    this.#deps = deps;
    this.#gateway = gateway;
  }

  async answer(params: ToolCallParams): Promise<CallToolResult> {
    const app = this.#request.appName;
    const gateway = this.#gateway;
    const named = splitToolName(params.name);
    const upstream = named === undefined ? undefined : gateway.upstream(named.server);
    if (named === undefined || upstream === undefined) {
      this.#count(named?.server ?? '', named?.tool ?? '', 'unknown_tool');
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${echo(params.name)} (tools/list names this app's tools)`,
      );
    }
    const { server, tool } = named;
    if (!gateway.allowanceOf(app, this.#deps.governance?.snapshot).allows(server, tool)) {
      this.#count(server, tool, 'denied');
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool ${echo(params.name)} is not allowed for app '${app}': its mcp.allow list (or its team's) does not name it`,
      );
    }
    const tooLarge = argumentsProblem(params.arguments, gateway.settings.maxArgumentBytes);
    if (tooLarge !== undefined) {
      this.#count(server, tool, 'invalid');
      throw new McpError(ErrorCode.InvalidParams, tooLarge);
    }
    if (!gateway.enter(app)) {
      this.#count(server, tool, 'rate_limited');
      return refusal(
        `Refused: app '${app}' already has ${gateway.settings.maxConcurrentCallsPerApp} tool calls in progress (its concurrent tool calls limit); retry when one has ended.`,
      );
    }
    try {
      return await this.#run(upstream, server, tool, params.arguments);
    } finally {
      gateway.leave(app);
    }
  }

  async #run(
    upstream: McpUpstream,
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
  ): Promise<CallToolResult> {
    const run = this.#runs.start(RUN_START);
    run.callsTool(server, tool);
    try {
      await run.admit(NO_TEXTS);
      Object.assign(this.limitHeaders, run.responseHeaders);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
      const { 'retry-after': _retryAfter, ...state } = error.headers ?? {};
      Object.assign(this.limitHeaders, state);
      this.#count(server, tool, 'rate_limited');
      const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      return refusal(
        `Refused: ${error.message}${retryAfter === undefined ? '' : `; retry after ${retryAfter} s`}.`,
      );
    }
    try {
      const guards = this.#deps.guardrails.guardsFor({
        app: this.#request.appName,
        team: teamOf(this.#request),
        task: undefined,
      });
      const blocked = await guardToolCall(this.#deps.guardrails, guards, run, args);
      if (blocked !== undefined) return this.#blocked(run, server, tool, blocked);
      const result = await upstream.call(tool, args, run.signal);
      run.markAnswered();
      const withheld = await guardToolCall(this.#deps.guardrails, guards, run, result);
      if (withheld !== undefined) return this.#blocked(run, server, tool, withheld);
      this.#count(server, tool, result.isError === true ? 'tool_error' : 'ok');
      return result;
    } catch (error) {
      if (run.signal.aborted) {
        run.finish(new ClientClosedError());
        this.#count(server, tool, 'client_closed');
        return refusal('The client closed the request before the tool answered.');
      }
      const failure = toUpstreamError(server, error);
      run.finish(
        new ApiError(failure.failure === 'timeout' ? 'upstream_timeout' : 'upstream_error', failure.message),
      );
      this.#count(server, tool, failure.failure);
      return refusal(failure.message);
    }
  }

  /** A guard blocked the call's arguments or its result: a tool error naming the guard, the row `guardrail_blocked`. */
  #blocked(run: RequestRun, server: string, tool: string, guard: string): CallToolResult {
    const error = blockedError(guard, 'mcp');
    run.finish(error);
    this.#count(server, tool, 'tool_error');
    return refusal(error.message);
  }

  #count(server: string, tool: string, outcome: McpCallOutcome): void {
    this.#deps.mcpMetrics?.called(server, tool, outcome);
  }
}

/** A tool result the client's model reads: the call did not happen, or gave nothing, and why. */
function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Why a call's arguments are refused (too large, or nested past what JSON.stringify can walk). */
function argumentsProblem(args: Record<string, unknown> | undefined, maxBytes: number): string | undefined {
  if (args === undefined) return undefined;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(args));
  } catch {
    return 'Invalid arguments: they nest too deeply to be passed on';
  }
  if (bytes > maxBytes)
    return `Invalid arguments: ${bytes} bytes as JSON, at most ${maxBytes} (mcp.maxArgumentBytes)`;
  return undefined;
}

function echo(name: string): string {
  return JSON.stringify(name.length <= MAX_ECHOED_NAME ? name : `${name.slice(0, MAX_ECHOED_NAME)}…`);
}
