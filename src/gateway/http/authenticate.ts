import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { CredentialVerdict, CredentialVerifier } from '../auth/credential-verifier.ts';
import type { BatchTickets } from './batch-tickets.ts';
import { ACCEPTED_FORMS, readCredentials } from './read-credentials.ts';

/**
 * Who a request is (CONTRACT 6.5): its app, the key it came with, and the app's team when it is in
 * one, as they were when the request was authenticated. Guardrails, batches and the limits read
 * the team here rather than looking it up again.
 */
export interface Principal {
  app: string;
  keyId: string;
  team: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated app name (set on /v1 paths). */
    appName: string;
    /** The authenticated app, key and team (set on /v1 paths). */
    principal: Principal;
  }
}

/** The team of an app, as this instance holds it now. */
export type TeamOf = (app: string) => string | undefined;

/**
 * onRequest hook for /v1: the credentials (any form `readCredentials` accepts) must match.
 * It runs before the body is read, so unauthenticated callers cannot make the gateway parse
 * large bodies. A wrong app and a wrong secret get the same 401, so it reveals
 * nothing; malformed headers are told which forms are accepted; a client address (or app name)
 * past its failures gets a 429 with Retry-After, late (decision 0013). Written with a
 * callback rather than `async` so that a credential the cache already knows (nearly every
 * request) costs no promise and no extra turn of the microtask queue. A batch runner's request
 * (batch-tickets.ts) runs as the app its ticket names.
 */
export function createAuthHook(
  verifier: CredentialVerifier,
  tickets?: BatchTickets,
  teamOf: TeamOf = () => undefined,
) {
  const delayMs = verifier.throttledAnswerDelayMs;
  return function authenticate(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const ticket = tickets?.redeem(request);
    if (ticket !== undefined) {
      if (ticket === false) done(new ApiError('unauthorized', `invalid app credentials; ${ACCEPTED_FORMS}`));
      else {
        request.appName = ticket.app;
        // A batch's request runs as its app; the key that made the batch is not known here.
        request.principal = { app: ticket.app, keyId: 'batch', team: teamOf(ticket.app) };
        done();
      }
      return;
    }
    const reading = readCredentials(
      request.headers,
      (request.query as Record<string, unknown> | undefined)?.['key'],
    );
    if (!reading.ok) {
      done(new ApiError('unauthorized', reading.reason));
      return;
    }
    const { app, secret } = reading.credentials;
    const settle = (verdict: CredentialVerdict) => {
      if (verdict.outcome === 'accepted') {
        request.appName = app;
        request.principal = { app, keyId: verdict.keyId, team: teamOf(app) };
        done();
      } else if (verdict.outcome === 'refused') {
        done(new ApiError('unauthorized', refusalMessage(app, verdict)));
      } else {
        const refusal = new ApiError(
          'rate_limited',
          `too many failed credential checks from this client address or for this app; retry after ${verdict.retryAfterSeconds} s`,
          { headers: { 'retry-after': String(verdict.retryAfterSeconds) } },
        );
        if (delayMs === 0) done(refusal);
        else setTimeout(() => done(refusal), delayMs);
      }
    };
    const checked = verifier.check(app, secret, request.ip);
    if ('outcome' in checked) settle(checked);
    else checked.then(settle, done);
  };
}

/** A wrong secret says nothing; a right secret of a key that ended or was revoked says which and when. */
function refusalMessage(app: string, verdict: CredentialVerdict & { outcome: 'refused' }): string {
  if (verdict.reason === undefined) return `invalid app credentials; ${ACCEPTED_FORMS}`;
  const when = verdict.at === undefined ? '' : ` at ${new Date(verdict.at).toISOString()}`;
  const what = verdict.reason === 'expired' ? 'expired' : 'was revoked';
  return `the key '${verdict.keyName ?? ''}' of app '${app}' ${what}${when}; ask for a new key`;
}
