import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import type { CredentialVerifier } from '../auth/credential-verifier.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated app name (set on /v1 paths). */
    appName: string;
  }
}

const MAX_HEADER_LENGTH = 512;

function headerValue(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string' || value === '' || value.length > MAX_HEADER_LENGTH) return undefined;
  return value;
}

/**
 * onRequest hook for /v1: both x-gateway-app and x-gateway-secret must be present and match.
 * It runs before the body is read, so unauthenticated callers cannot make the gateway parse
 * large bodies. The same 401 answers every failure, so it reveals nothing. Written with a
 * callback rather than `async` so that a credential the cache already knows (nearly every
 * request) costs no promise and no extra turn of the microtask queue.
 */
export function createAuthHook(verifier: CredentialVerifier) {
  return function authenticate(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const app = headerValue(request.headers['x-gateway-app']);
    const secret = headerValue(request.headers['x-gateway-secret']);
    if (app === undefined || secret === undefined) {
      done(new ApiError('unauthorized', 'x-gateway-app and x-gateway-secret headers are required'));
      return;
    }
    const settle = (ok: boolean) => {
      if (!ok) {
        done(new ApiError('unauthorized', 'invalid app credentials'));
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
