import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { AdminActor } from '../governance/admin-actor.ts';
import type { GovernanceAdmin } from '../governance/governance-admin.ts';
import type { KeyAdmin } from '../governance/key-admin.ts';
import {
  APP_CREATE,
  APP_PATCH,
  KEY_CREATE,
  KEY_ROTATE,
  NAME_PARAMS,
  TEAM_CREATE,
  TEAM_PATCH,
  TOKEN_CREATE,
} from './governance-schemas.ts';

type Params = { team: string; app: string; id: string };
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by their JSON Schemas before the handler runs.
type Body = any;
type Handler = (
  actor: AdminActor,
  params: Params,
  body: Body,
  query: Record<string, string | undefined>,
) => unknown;

const MAX_AUDIT = 500;

/**
 * The admin API's teams, apps, keys, team tokens and audit (CONTRACT 6.5, 6.9), inside the admin
 * scope (the caller's actor set by its onRequest hook). Lists answer `{data: [...]}`; creations 201.
 */
export function registerGovernanceRoutes(
  api: FastifyInstance,
  actorOf: (request: FastifyRequest) => AdminActor,
  admin: GovernanceAdmin,
  keys: KeyAdmin,
): void {
  const route = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body: object | undefined,
    status: number,
    handler: Handler,
  ) =>
    api.route({
      method,
      url,
      schema: {
        hide: true,
        params: NAME_PARAMS,
        ...(body === undefined ? {} : { body }),
        querystring: { type: 'object', additionalProperties: { type: 'string', maxLength: 200 } },
      },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const result = await handler(
          actorOf(request),
          request.params as Params,
          request.body ?? {},
          request.query as Record<string, string | undefined>,
        );
        reply.code(status);
        return result === undefined ? reply.send() : result;
      },
    });
  const list = async (data: Promise<unknown[]>) => ({ data: await data });

  route('GET', '/teams', undefined, 200, (actor) => list(admin.listTeams(actor)));
  route('POST', '/teams', TEAM_CREATE, 201, (actor, _p, body) => admin.createTeam(actor, body));
  route('GET', '/teams/:team', undefined, 200, (actor, p) => admin.showTeam(actor, p.team));
  route('PATCH', '/teams/:team', TEAM_PATCH, 200, (actor, p, body) => admin.updateTeam(actor, p.team, body));
  route('DELETE', '/teams/:team', undefined, 204, (actor, p, _b, query) =>
    admin.deleteTeam(actor, p.team, readForce(query.force)),
  );
  route('GET', '/teams/:team/tokens', undefined, 200, (actor, p) => list(keys.listTeamTokens(actor, p.team)));
  route('POST', '/teams/:team/tokens', TOKEN_CREATE, 201, (actor, p, body) =>
    keys.createTeamToken(actor, p.team, body),
  );
  route('DELETE', '/teams/:team/tokens/:id', undefined, 204, (actor, p) =>
    keys.revokeTeamToken(actor, p.team, p.id),
  );

  route('POST', '/apps', APP_CREATE, 201, (actor, _p, body) => admin.createApp(actor, body));
  route('GET', '/apps/:app', undefined, 200, (actor, p) => admin.showApp(actor, p.app));
  route('PATCH', '/apps/:app', APP_PATCH, 200, (actor, p, body) => admin.updateApp(actor, p.app, body));
  route('DELETE', '/apps/:app', undefined, 204, (actor, p) => admin.deleteApp(actor, p.app));
  route('GET', '/apps/:app/keys', undefined, 200, (actor, p) => list(keys.listKeys(actor, p.app)));
  route('POST', '/apps/:app/keys', KEY_CREATE, 201, (actor, p, body) => keys.createKey(actor, p.app, body));
  route('DELETE', '/apps/:app/keys/:id', undefined, 204, (actor, p) => keys.revokeKey(actor, p.app, p.id));
  route('POST', '/apps/:app/keys/:id/rotate', KEY_ROTATE, 201, (actor, p, body) =>
    keys.rotateKey(actor, p.app, p.id, body),
  );

  route('GET', '/audit', undefined, 200, (actor, _p, _b, query) =>
    list(
      keys.listAudit(actor, {
        limit: readLimit(query.limit),
        ...(query.before === undefined ? {} : { before: readInstant(query.before) }),
        ...(query.team === undefined ? {} : { team: query.team }),
      }),
    ),
  );
}

function readForce(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ApiError('invalid_request', 'force must be true or false', {
    details: [{ path: '/force', message: 'must be true or false' }],
  });
}

function readLimit(value: string | undefined): number {
  if (value === undefined) return 100;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT)
    throw new ApiError('invalid_request', `limit must be 1 to ${MAX_AUDIT}`, {
      details: [{ path: '/limit', message: `must be a whole number from 1 to ${MAX_AUDIT}` }],
    });
  return limit;
}

function readInstant(value: string): number {
  const at = Date.parse(value);
  if (!Number.isFinite(at))
    throw new ApiError('invalid_request', 'before must be an RFC 3339 date-time', {
      details: [{ path: '/before', message: 'must be an RFC 3339 date-time' }],
    });
  return at;
}
