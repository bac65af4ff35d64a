import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { compileEveryRouteSchema, createBaseApp } from '../../src/platform/fastify-base.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { APP, AUTH, SECRET } from '../helpers/gateway-harness.ts';

/**
 * Route schemas compile on a route's first use (src/platform/lazy-schema-compilers.ts), so a schema
 * that Ajv or fast-json-stringify refuses would show only on a caller's first request. Here every
 * schema of both surfaces, the compatible doors, the admin API and metrics included, is compiled.
 */
describe('route schemas, compiled on first use', () => {
  it('every schema of both surfaces compiles, and none was compiled before a request needed it', async () => {
    const config = loadConfig(
      {
        DATA_DIR: ':memory:',
        LOG_LEVEL: 'silent',
        SURFACES: 'gateway,site',
        GATEWAY_APPS: `${APP}:${SECRET}`,
      },
      [],
    );
    const app = await buildApplication(config, createLogger({ level: 'silent' }));
    try {
      const gateway = app.gateway;
      const site = app.site;
      assert.ok(gateway !== undefined && site !== undefined);
      await Promise.all([gateway.ready(), site.ready()]);
      // Nothing compiled at start-up: everything is still pending (dozens of routes and answers).
      const gatewayPending = compileEveryRouteSchema(gateway);
      const sitePending = compileEveryRouteSchema(site);
      assert.ok(gatewayPending >= 20, `gateway schemas pending after start-up: ${gatewayPending}`);
      assert.ok(sitePending >= 5, `site schemas pending after start-up: ${sitePending}`);
      assert.equal(compileEveryRouteSchema(gateway), 0, 'compiled once, kept');
    } finally {
      await app.close();
    }
  });

  it('a request compiles only its own route, and validation still names every failing field', async () => {
    const config = loadConfig(
      { DATA_DIR: ':memory:', LOG_LEVEL: 'silent', SURFACES: 'gateway', GATEWAY_APPS: `${APP}:${SECRET}` },
      [],
    );
    const app = await buildApplication(config, createLogger({ level: 'silent' }));
    try {
      const gateway = app.gateway;
      assert.ok(gateway !== undefined);
      await gateway.ready();
      const reply = await gateway.inject({
        method: 'POST',
        url: '/v1/embed',
        headers: AUTH,
        payload: { input: 42, model: 7 },
      });
      assert.equal(reply.statusCode, 400, reply.body);
      const body = reply.json() as { error: { code: string; details?: unknown } };
      assert.equal(body.error.code, 'invalid_request');
      const text = JSON.stringify(body.error);
      assert.match(text, /input/);
      assert.match(text, /model/);
      const remaining = compileEveryRouteSchema(gateway);
      const fresh = await buildApplication(config, createLogger({ level: 'silent' }));
      try {
        assert.ok(fresh.gateway !== undefined);
        await fresh.gateway.ready();
        assert.ok(
          compileEveryRouteSchema(fresh.gateway) > remaining,
          'the /v1/embed request compiled its own schemas, and those were no longer pending',
        );
      } finally {
        await fresh.close();
      }
    } finally {
      await app.close();
    }
  });

  it('a schema that does not compile is found by compiling every route schema', async () => {
    const app = createBaseApp({ logger: createLogger({ level: 'silent' }), maxBodyBytes: 1024 });
    app.post(
      '/broken',
      // An unknown format fails Ajv's strict compile.
      { schema: { body: Type.Object({ when: Type.String({ format: 'no-such-format' }) }) } },
      async () => ({}),
    );
    await app.ready();
    assert.throws(() => compileEveryRouteSchema(app), /no-such-format/);
    await app.close();
  });
});
