import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toApiError } from '../../platform/error-handler.ts';
import type { ApiError } from '../../platform/errors.ts';
import { CLIENT_CLOSED_STATUS, ClientClosedError } from '../services/client-closed-error.ts';
import { passUpstreamRejection } from './upstream-rejection.ts';

/** A door's error body for a gateway error: the vendor's shape around the same status. */
export type ErrorBodyOf = (error: ApiError, request: FastifyRequest) => unknown;

/**
 * The error handler of a compatible door's scope: every failure there (the credential check's
 * 401, Fastify's own 400/413/415, the use case's errors) answers with the native route's status
 * and headers, in the vendor's error shape, so that the vendor's SDK raises its own typed error.
 */
export function doorErrorHandler(bodyOf: ErrorBodyOf) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (error instanceof ClientClosedError) {
      request.log.info('client closed the request before the answer');
      return reply.code(CLIENT_CLOSED_STATUS).send();
    }
    const apiError = passUpstreamRejection(toApiError(error));
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (apiError.headers !== undefined) reply.headers(apiError.headers);
    return reply
      .code(apiError.statusCode)
      .type('application/json; charset=utf-8')
      .send(bodyOf(apiError, request));
  };
}
