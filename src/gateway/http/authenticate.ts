import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { CredentialVerdict, CredentialVerifier } from '../auth/credential-verifier.ts';
import type { BatchTickets } from './batch-tickets.ts';
import { ACCEPTED_FORMS, readCredentials } from './read-credentials.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated app name (set on /v1 paths). */
    appName: string;
  }
}

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
export function createAuthHook(verifier: CredentialVerifier, tickets?: BatchTickets) {
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
        done();
      } else if (verdict.outcome === 'refused') {
        done(new ApiError('unauthorized', `invalid app credentials; ${ACCEPTED_FORMS}`));
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
