import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { CENSOR, REDACTED_PATHS, redactFields, redactNested } from './log-redaction.ts';
import { buildLoggerOptions, redactingChildren } from './logger.ts';

/** Lines written by a logger, parsed, without the time (it differs between two loggers). */
function capture(options: pino.LoggerOptions): { logger: pino.Logger; lines: () => unknown[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  const logger = pino(options, sink);
  return {
    logger,
    lines: () =>
      written.map((line) => {
        const { time: _time, ...rest } = JSON.parse(line) as Record<string, unknown>;
        return rest;
      }),
  };
}

/** The configuration this module replaced: pino wildcard paths, run on every value. */
const WILDCARD_OPTIONS: pino.LoggerOptions = {
  ...buildLoggerOptions('info'),
  formatters: {},
  serializers: { err: pino.stdSerializers.err },
  redact: {
    paths: [...REDACTED_PATHS, '*.secret', '*.apiKey', '*.*.apiKey', '*.password'],
    censor: CENSOR,
  },
};

describe('log redaction', () => {
  it('redacts exactly what the pino wildcard paths redacted', () => {
    const before = capture(WILDCARD_OPTIONS);
    const after = capture(buildLoggerOptions('info'));
    redactingChildren(after.logger);
    const error = Object.assign(new Error('boom'), { apiKey: 'sk-1', details: { apiKey: 'sk-2', keep: 1 } });
    const samples: [Record<string, unknown>, string][] = [
      [{ method: 'POST', url: '/v1/chat', status: 200, ms: 0.41 }, 'request completed'],
      [{ secret: 's', apiKey: 'k', password: 'p', keep: 'x' }, 'top level'],
      [{ settings: { apiKey: 'k', secret: 's', password: 'p', model: 'm' } }, 'one level down'],
      [{ providers: { a: { apiKey: 'k', baseUrl: 'u' }, b: { chatModel: 'c' } } }, 'two levels down'],
      [{ list: [{ apiKey: 'k' }, { other: 1 }] }, 'arrays'],
      [{ headers: { authorization: 'Bearer t', 'x-gateway-secret': 's', accept: 'a' } }, 'headers'],
      [{ req: { headers: { authorization: 'Bearer t', 'x-api-key': 'k' } } }, 'req'],
      [{ settings: { secret: { apiKey: 'k' } } }, 'nested secret object'],
      [{ deep: { a: { b: { apiKey: 'kept: three levels down' } } } }, 'deeper'],
      [{ err: error }, 'errors'],
    ];
    for (const [fields, message] of samples) {
      before.logger.info(fields, message);
      after.logger.info(fields, message);
    }
    for (const { logger } of [before, after]) {
      logger.child({ component: 'usage', config: { apiKey: 'k' } }).info('child');
      // As Fastify makes its request loggers: a child with serializers, then one per request.
      const request = logger.child({}, { serializers: { res: (r: { statusCode: number }) => r } });
      request.child({ reqId: 'req_1' }).error({ err: error, res: { statusCode: 500 } }, 'request failed');
    }
    assert.deepEqual(after.lines(), before.lines());
    assert.equal(
      after.lines().some((line) => JSON.stringify(line).includes('sk-')),
      false,
    );
  });

  it('censors every credential header the gateway accepts, under req.headers and headers', () => {
    const { logger, lines } = capture(buildLoggerOptions('info'));
    const credentials = {
      authorization: 'Bearer app:sk-bearer',
      'x-api-key': 'app:sk-api-key',
      'x-gateway-secret': 'sk-native',
      'x-gateway-app': 'app',
    };
    logger.info({ req: { headers: credentials } }, 'req');
    logger.info({ headers: credentials }, 'headers');
    for (const line of lines() as {
      req?: { headers: Record<string, string> };
      headers?: Record<string, string>;
    }[]) {
      const headers = line.req?.headers ?? line.headers;
      assert.deepEqual(headers, {
        authorization: CENSOR,
        'x-api-key': CENSOR,
        'x-gateway-secret': CENSOR,
        'x-gateway-app': 'app',
      });
    }
    assert.equal(lines().length, 2);
  });

  it('never changes the logged object, and returns a line without objects as it is', () => {
    const settings = { apiKey: 'k', model: 'm' };
    const fields = { settings };
    const redacted = redactFields(fields);
    assert.deepEqual(redacted, { settings: { apiKey: CENSOR, model: 'm' } });
    assert.equal(settings.apiKey, 'k');
    const flat = { method: 'GET', status: 200 };
    assert.equal(redactFields(flat), flat);
    assert.equal(redactNested('text'), 'text');
  });
});
