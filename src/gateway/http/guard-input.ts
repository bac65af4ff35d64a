import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { isBodyDeferred, settleDeferredBody } from '../../platform/json-thread/deferred-json-body.ts';
import { collectBodyTexts, type TextSlot, writeBodyTexts } from '../guardrails/body-texts.ts';
import type { GuardEvent, GuardVerdict } from '../guardrails/guard-verdict.ts';
import type { Guardrails, RequestGuards } from '../guardrails/guardrails.ts';
import type { GatewayDeps } from '../services/gateway-deps.ts';
import type { RequestRun } from '../services/run/request-run.ts';
import { resolveModelField } from '../services/use-cases/address-model.ts';
import { INFERENCE_ROUTES } from './count-requests-without-run.ts';

/** What the input guards decided for a request, kept until its run starts. */
interface InputGuarding {
  guards: RequestGuards;
  events: GuardEvent[];
  blocked: ApiError | undefined;
  rewritten: boolean;
}

const guarded = new WeakMap<FastifyRequest, InputGuarding>();

/**
 * The input phase (CONTRACT 6.6), for every door at once: a preHandler on the inference routes
 * reads the parsed body's texts (guardrails/body-texts.ts: prompts, system prompts, tool results),
 * runs the input guards attached to the request's app, team and route, and writes masked texts
 * back into the body before any door reads it. A block is kept for the run (`applyInputGuards`),
 * which records it as 5.1 wants and makes no upstream call. Without guards, nothing is read.
 */
export function guardInput(
  scope: FastifyInstance,
  deps: Pick<GatewayDeps, 'config' | 'registry' | 'guardrails'>,
): void {
  if (!deps.guardrails.active) return;
  // A callback hook, not an async one: a chat's prompt is checked at once (Guardrails.checkNow),
  // and the request goes on without a promise or a turn of the event loop (issue 42).
  scope.addHook('preHandler', (request, _reply, done) => {
    if (request.method !== 'POST' || INFERENCE_ROUTES[request.routeOptions.url ?? ''] === undefined)
      return done();
    // The guards read the parsed body: a lane's large body not parsed yet is parsed on the JSON thread.
    if (isBodyDeferred(request)) {
      settleDeferredBody(request)
        .then(() => guardRequest(deps, request))
        .then(() => done(), done);
      return;
    }
    let pending: Promise<void> | undefined;
    try {
      pending = guardRequest(deps, request);
    } catch (error) {
      return done(error as Error);
    }
    if (pending === undefined) return done();
    pending.then(() => done(), done);
  });
}

/** Runs the input guards over the request's body; a promise only when a guard must be waited for. */
function guardRequest(
  deps: Pick<GatewayDeps, 'config' | 'registry' | 'guardrails'>,
  request: FastifyRequest,
): Promise<void> | undefined {
  const guards = deps.guardrails.guardsFor({
    app: request.appName,
    team: teamOf(request),
    task: taskOf(deps, request.body),
  });
  if (guards === undefined) return undefined;
  const state: InputGuarding = { guards, events: [], blocked: undefined, rewritten: false };
  guarded.set(request, state);
  if (guards.input.length === 0) return undefined;
  const { slots, texts } = collectBodyTexts(request.body);
  if (texts.length === 0) return undefined;
  const verdict = deps.guardrails.checkNow('input', guards.input, texts, {
    ...guards.context,
    model: modelOf(request.body),
  });
  if (verdict instanceof Promise)
    return verdict.then((settled) => applyVerdict(state, slots, texts, settled));
  applyVerdict(state, slots, texts, verdict);
  return undefined;
}

function applyVerdict(
  state: InputGuarding,
  slots: readonly TextSlot[],
  texts: readonly string[],
  verdict: GuardVerdict,
): void {
  if (verdict.events.length > 0) state.events.push(...verdict.events);
  if (verdict.blockedBy !== undefined) {
    state.blocked = blockedError(verdict.blockedBy, 'input');
    return;
  }
  if (verdict.changed) {
    writeBodyTexts(slots, texts, verdict.texts);
    state.rewritten = true;
  }
}

/**
 * The error a block answers with: the guard named, no matched value in it (CONTRACT 6.6). The
 * message starts with the code, which the Anthropic door's clients read (its body has no code).
 */
export function blockedError(guard: string, phase: string): ApiError {
  const what = phase === 'output' ? 'answer' : phase === 'mcp' ? 'tool call' : 'request';
  return new ApiError('guardrail_blocked', `guardrail_blocked: the guard '${guard}' blocked this ${what}`, {
    details: { guard, phase },
  });
}

/**
 * Hands the run what the input guards did (for its ledger row) and, for a blocked request,
 * finishes the run with the block and throws it: the door answers its 400, nothing went upstream.
 */
export function applyInputGuards(request: FastifyRequest, run: RequestRun): void {
  const state = guarded.get(request);
  if (state === undefined) return;
  run.guardrails.events.push(...state.events);
  if (state.blocked !== undefined) {
    run.finish(state.blocked);
    throw state.blocked;
  }
}

/** The guards that apply to the request (for its output and its MCP calls), when any are configured. */
export function requestGuardsOf(request: FastifyRequest): RequestGuards | undefined {
  return guarded.get(request)?.guards;
}

/** Whether a mask rewrote the body: then its original bytes must not go upstream. */
export function bodyWasRewritten(request: FastifyRequest): boolean {
  return guarded.get(request)?.rewritten === true;
}

/**
 * The request's team, as the authenticated principal carries it (`request.principal.team`, the
 * app's team when the request was authenticated; CONTRACT 6.5).
 */
export function teamOf(request: FastifyRequest): string | undefined {
  return (request as Partial<Pick<FastifyRequest, 'principal'>>).principal?.team;
}

/** The request's task: the native body's `task`, or the route a vendor door's `model` names. */
function taskOf(deps: Pick<GatewayDeps, 'config' | 'registry'>, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { task, model } = body as { task?: unknown; model?: unknown };
  if (typeof task === 'string') return task;
  if (typeof model !== 'string') return undefined;
  try {
    return resolveModelField(deps, model).task;
  } catch {
    // The door refuses the name itself, in its own shape.
    return undefined;
  }
}

function modelOf(body: unknown): string | null {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model.slice(0, 200) : null;
}

export type { Guardrails };
