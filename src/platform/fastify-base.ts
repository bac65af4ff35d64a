import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { installErrorEnvelope } from './error-handler.ts';
import { pickRequestId } from './ids.ts';
import type { Logger } from './logger.ts';

export interface BaseAppOptions {
  logger: Logger;
  maxBodyBytes: number;
  trustProxy?: boolean | number | string[];
}

/**
 * A Fastify instance with what both surfaces share: request ids (x-request-id on every
 * response), the error envelope, a body limit, JSON-only bodies, strict validation that
 * reports every failing field, and one log line per request.
 */
export function createBaseApp(options: BaseAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger,
    // Fastify's two lines per request are replaced by one line on completion (onResponse below).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => pickRequestId(req.headers['x-request-id']),
    requestIdHeader: false,
    bodyLimit: options.maxBodyBytes,
    trustProxy: toTrustProxy(options.trustProxy ?? false),
    // Behind a load balancer, idle keep-alive connections must outlive the balancer's timeout.
    keepAliveTimeout: 72_000,
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allowUnionTypes: true,
      },
    },
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  // Only JSON bodies: anything else gets 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');
  installErrorEnvelope(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: redactUrlTokens(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 1000) / 1000,
      },
      'request completed',
    );
    done();
  });
  return app;
}

/** Link tokens (newsletter confirm and unsubscribe) are credentials: the request log keeps them out. */
export function redactUrlTokens(url: string): string {
  // Nearly every logged URL has no query string: it skips the regular expression.
  if (!url.includes('?')) return url;
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

/** A hop count becomes the function form Fastify's types accept: trust the nearest `hops` proxies. */
function toTrustProxy(
  value: boolean | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
