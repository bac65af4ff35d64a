import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { CredentialVerifier } from '../auth/credential-verifier.ts';
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
 * nothing; malformed headers are told which forms are accepted. Written with a
 * callback rather than `async` so that a credential the cache already knows (nearly every
 * request) costs no promise and no extra turn of the microtask queue.
 */
export function createAuthHook(verifier: CredentialVerifier) {
  return function authenticate(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const reading = readCredentials(request.headers);
    if (!reading.ok) {
      done(new ApiError('unauthorized', reading.reason));
      return;
    }
    const { app, secret } = reading.credentials;
    const settle = (ok: boolean) => {
      if (!ok) {
        done(new ApiError('unauthorized', `invalid app credentials; ${ACCEPTED_FORMS}`));
        return;
      }
      request.appName = app;
      done();
    };
    const checked = verifier.check(app, secret);
    if (typeof checked === 'boolean') settle(checked);
    else checked.then(settle, done);
  };
}
