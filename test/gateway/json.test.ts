import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'Extract the person.' }];
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    age: { type: 'integer', minimum: 18, maximum: 99 },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 1 },
  },
  required: ['name', 'age', 'email', 'tags'],
  additionalProperties: false,
};

describe('POST /v1/json', () => {
  const gw = shareGateway();

  it('returns data that validates against the supplied schema, with raw message and usage', async () => {
    const res = await gw.json({ messages, schema });
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.match(body.id, /^json_/);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    assert.ok(validate(body.data), JSON.stringify(validate.errors));
    assert.deepEqual(JSON.parse(body.raw.content), body.data);
    assert.equal(body.raw.role, 'assistant');
    assert.ok(body.usage.tokensIn > 0 && body.usage.tokensOut > 0);
  });

  it('accepts a draft-07 schema', async () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 5 } },
      required: ['n'],
    };
    const res = await gw.json({ messages, schema: draft7 });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.n > 5);
  });

  it('re-asks with the validation errors, and usage and cost add up over both calls', async () => {
    const once = (await gw.json({ messages, schema })).body;
    const before = gw.calls.length;
    const res = await gw.json({
      messages,
      schema,
      metadata: { simulated: { fault: 'invalid_json', faultAttempts: 1 } },
    });
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.equal(gw.calls.length - before, 2, 'one call, one re-ask');
    assert.ok(
      body.usage.tokensIn > once.usage.tokensIn,
      'the re-ask carries the conversation, so more input',
    );
    assert.ok(body.usage.tokensOut > once.usage.tokensOut);
    assert.ok(body.usage.estimatedCost > once.usage.estimatedCost);
  });

  it('gives 502 json_validation_failed with the last errors when no attempt validates', async () => {
    const before = gw.calls.length;
    const res = await gw.json({ messages, schema, metadata: { simulated: { fault: 'invalid_json' } } });
    assert.equal(res.status, 502);
    const { error } = res.body;
    assert.equal(error.code, 'json_validation_failed');
    assert.ok(Array.isArray(error.details) && error.details.length > 0);
    assert.match(error.details[0].message, /not valid JSON/);
    assert.equal(gw.calls.length - before, 3, 'bounded: three calls by default');
  });

  it('reports a schema the simulated model cannot satisfy as json_validation_failed, never invalid data', async () => {
    const strict = {
      type: 'object',
      // No value can satisfy it (a string that is not a string): every re-ask fails too.
      properties: { code: { type: 'string', not: { type: 'string' } } },
      required: ['code'],
    };
    const res = await gw.json({ messages, schema: strict });
    assert.equal(res.status, 502);
    assert.equal(res.body.error.details[0].path, '/code');
  });

  const hostile: { name: string; schema: unknown; path?: string }[] = [
    { name: 'not a schema (type is a number)', schema: { type: 12 } },
    { name: 'remote $ref', schema: { $ref: 'https://example.com/schema.json' }, path: '/schema/$ref' },
    {
      name: 'pattern with a backreference',
      schema: { type: 'string', pattern: '^(a)\\1$' },
      path: '/schema/pattern',
    },
    {
      name: 'lookahead in patternProperties',
      schema: { type: 'object', patternProperties: { '^(?=x)': {} } },
      path: '/schema/patternProperties/^(?=x)',
    },
    {
      name: 'unknown dialect',
      schema: { $schema: 'http://json-schema.org/draft-04/schema#' },
      path: '/schema/$schema',
    },
    { name: 'unresolvable local $ref', schema: { $ref: '#/$defs/missing' } },
    {
      name: 'nested 200 levels deep',
      schema: Array.from({ length: 200 }).reduce<Record<string, unknown>>(
        (inner) => ({ type: 'array', items: inner }),
        {},
      ),
    },
    { name: 'larger than 64 KiB', schema: { type: 'object', description: 'x'.repeat(70_000) } },
  ];
  for (const c of hostile) {
    it(`refuses a hostile or invalid schema with 400: ${c.name}`, async () => {
      const before = gw.calls.length;
      const res = await gw.json({ messages, schema: c.schema });
      assert.equal(res.status, 400, res.text);
      const { error } = res.body;
      assert.equal(error.code, 'invalid_request');
      if (c.path !== undefined) assert.equal(error.details[0].path, c.path);
      assert.equal(gw.calls.length, before, 'no upstream call for a bad schema');
    });
  }
});
