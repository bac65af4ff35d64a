import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorBodyOf, respondWithError, toApiError } from '../../platform/error-handler.ts';
import { toDoorError } from './agent-fault-status.ts';

/**
 * The error handler of a compatible door's scope: every failure there (the credential check's
 * 401, Fastify's own 400/413/415, the use case's errors) answers with the native route's status
 * and headers, in the vendor's error shape, so that the vendor's SDK raises its own typed error;
 * an upstream's own 400 or 404 keeps its status and message, and a rate limit or a context
 * overflow is answered as the vendor's clients act on it (agent-fault-status.ts).
 */
export function doorErrorHandler(bodyOf: ErrorBodyOf) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    respondWithError(toDoorError(toApiError(error)), request, reply, bodyOf);
}
