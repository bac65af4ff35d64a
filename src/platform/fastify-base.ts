import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { ConnectionTimeouts } from '../config/config-types.ts';
import { DEFAULTS } from '../config/defaults.ts';
import { createClientErrorHandler } from './client-error-handler.ts';
import { drainUnreadBody } from './drain-unread-body.ts';
import { installErrorEnvelope, respondToFrameworkError } from './error-handler.ts';
import { pickRequestId } from './ids.ts';
import { parseJsonBodiesOffThread } from './json-thread/json-body-parser.ts';
import { type LazySchemaCompilers, lazySchemaCompilers } from './lazy-schema-compilers.ts';
import type { Logger } from './logger.ts';
import { refuseWhileClosing, watchClosing } from './refuse-while-closing.ts';

export interface BaseAppOptions {
  logger: Logger;
  maxBodyBytes: number;
  trustProxy?: boolean | number | string[];
  timeouts?: ConnectionTimeouts;
}

/**
 * A Fastify instance with what both surfaces share: request ids (x-request-id on every
 * response), the error envelope, a body limit, JSON-only bodies, strict validation that
 * reports every failing field, and one log line per request.
 */
export function createBaseApp(options: BaseAppOptions): FastifyInstance {
  const timeouts = options.timeouts ?? DEFAULTS.connections;
  const compilers = lazySchemaCompilers();
  const app = Fastify({
    loggerInstance: options.logger,
    // Fastify's two lines per request are replaced by one line on completion (onResponse below).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => pickRequestId(req.headers['x-request-id']),
    requestIdHeader: false,
    bodyLimit: options.maxBodyBytes,
    trustProxy: toTrustProxy(options.trustProxy ?? false),
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      // Node enforces both timeouts on this tick (30 s by default, which would let a 15 s limit
      // run to 45 s): a quarter of the headers timeout, at most a second.
      connectionsCheckingInterval: checkingInterval(timeouts),
    },
    // Requests arriving while the server drains get the envelope (refuseWhileClosing), not Fastify's body.
    return503OnClosing: false,
    frameworkErrors: respondToFrameworkError,
    // Malformed HTTP, oversized headers and timeouts, answered before Fastify sees a request.
    clientErrorHandler: createClientErrorHandler(options.logger),
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allowUnionTypes: true,
      },
    },
    // Each route's schemas compiled on its first use, not all at start-up (lazy-schema-compilers.ts).
    schemaController: { compilersFactory: compilers.compilersFactory },
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  schemaCompilers.set(app, compilers);
  // Only JSON bodies: anything else gets 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');
  // Fastify's JSON parsing, with megabyte bodies read off the event loop (json-body-parser.ts).
  parseJsonBodiesOffThread(app);
  installErrorEnvelope(app);
  const server = watchClosing(app);
  // One hook for what every request needs first: its id on the answer, and no new work while the
  // server drains.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (server.closing) refuseWhileClosing(reply);
    else done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // Answered before the body was read (413, 401, 415…): read on a bounded amount so the client gets the answer.
    if (!request.raw.complete) drainUnreadBody(request.raw, reply.raw);
    done(null, payload);
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

const schemaCompilers = new WeakMap<FastifyInstance, LazySchemaCompilers>();

/**
 * Compiles every route schema of `app` (and its plugins) that no request has needed yet and says
 * how many; throws as the first failing compile does. For tests: a schema that does not compile
 * fails there, not on a caller's first request.
 */
export function compileEveryRouteSchema(app: FastifyInstance): number {
  const compilers = schemaCompilers.get(app);
  if (compilers === undefined) throw new Error('not an app made by createBaseApp');
  return compilers.compileAll();
}

function checkingInterval(timeouts: ConnectionTimeouts): number {
  const shortest = Math.min(
    ...[timeouts.headersTimeoutMs, timeouts.requestTimeoutMs].filter((ms) => ms > 0),
    4_000,
  );
  return Math.max(25, Math.min(1_000, Math.floor(shortest / 4)));
}

/** Link tokens (newsletter confirm and unsubscribe) and Google-style `?key=` app keys (the Gemini door) are credentials: the request log keeps them out. */
export function redactUrlTokens(url: string): string {
  // Nearly every logged URL has no query string: it skips the regular expression.
  if (!url.includes('?')) return url;
  return url.replace(/([?&](?:token|key)=)[^&#]*/gi, '$1[redacted]');
}

/** A hop count becomes the function form Fastify's types accept: trust the nearest `hops` proxies. */
function toTrustProxy(
  value: boolean | number | string[],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
