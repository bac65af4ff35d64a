import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { shareGateway } from '../helpers/gateway-harness.ts';

const messages = [{ role: 'user', content: 'Extract the address.' }];

/** An independent validator (not the gateway's), as a client would check the answer. */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

describe('POST /v1/json on the simulated provider', () => {
  const h = shareGateway();

  async function askFor(
    schema: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const { status, body } = await h.json({ messages, schema });
    return { status, body: body as Record<string, unknown> };
  }

  it('answers the issue’s zip code schema on the first call', async () => {
    const schema = {
      type: 'object',
      properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['zip'],
    };
    const before = h.calls.length;
    const { status, body } = await askFor(schema);
    assert.equal(status, 200, JSON.stringify(body));
    assert.match((body.data as { zip: string }).zip, /^[0-9]{5}$/);
    assert.equal(h.calls.length - before, 1, 'no re-ask');
  });

  it('answers schemas with not, if/then/else, oneOf, propertyNames and dependentSchemas', async () => {
    const schema = {
      type: 'object',
      properties: {
        zip: { type: 'string', pattern: '^[0-9]{5}$', not: { const: '00000' } },
        country: { enum: ['US', 'FR'] },
        phone: {
          oneOf: [
            { type: 'string', format: 'email' },
            { type: 'string', minLength: 3 },
          ],
        },
        tags: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, minProperties: 2 },
        card: { type: 'string' },
      },
      required: ['zip', 'country', 'phone', 'tags', 'card'],
      dependentSchemas: {
        card: { required: ['billing'], properties: { billing: { type: 'string', format: 'date' } } },
      },
      // if/then/else from entries: a literal `then` key reads as a thenable to the linter.
      ...Object.fromEntries([
        ['if', { properties: { country: { const: 'US' } } }],
        ['then', { properties: { zip: { minLength: 5 } } }],
        ['else', { properties: { zip: { maxLength: 5 } } }],
      ]),
    };
    const { status, body } = await askFor(schema);
    assert.equal(status, 200, JSON.stringify(body));
    const validate = ajv.compile(schema);
    assert.ok(validate(body.data), JSON.stringify(validate.errors));
  });

  it('gives an unsatisfiable schema its 502 json_validation_failed quickly', async () => {
    const start = performance.now();
    const { status, body } = await askFor({ type: 'string', not: { pattern: '' } });
    assert.equal(status, 502);
    assert.equal((body.error as { code: string }).code, 'json_validation_failed');
    assert.ok(performance.now() - start < 2000);
  });
});
