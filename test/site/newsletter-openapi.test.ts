import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startSite } from '../helpers/site-harness.ts';

/** The newsletter and health routes must describe themselves in surface B's OpenAPI document. */
describe('newsletter and health routes in the site OpenAPI document', () => {
  it('appear with an operationId, a summary and their responses, in a valid OpenAPI 3.1 document', async (t) => {
    const h = await startSite(t, { env: { NEWSLETTER_WEBHOOK_URL: 'http://127.0.0.1:1/hook' } });
    const res = await h.get('/openapi.json');
    assert.equal(res.status, 200);
    const doc = res.body;
    await SwaggerParser.validate(structuredClone(doc));

    const operations = [
      ['/api/newsletter', 'post', 'subscribeNewsletter'],
      ['/api/newsletter/confirm', 'get', 'confirmNewsletter'],
      ['/api/newsletter/unsubscribe', 'get', 'showNewsletterUnsubscribe'],
      ['/api/newsletter/unsubscribe', 'post', 'unsubscribeNewsletter'],
      ['/api/health', 'get', 'health'],
      ['/up', 'get', 'up'],
    ] as const;
    for (const [path, method, operationId] of operations) {
      const operation = doc.paths[path]?.[method];
      assert.ok(operation, `${method} ${path}`);
      assert.equal(operation.operationId, operationId);
      assert.ok(operation.summary);
      assert.ok(operation.responses['200'], `${operationId} documents 200`);
    }
    const signup = doc.paths['/api/newsletter'].post;
    assert.deepEqual(Object.keys(signup.responses).sort(), ['200', '400', '413', '415', '429', '500']);
    assert.deepEqual(signup.requestBody.content['application/json'].schema.required, ['email']);
    assert.deepEqual(signup.responses['200'].content['application/json'].schema.properties.status.enum, [
      'pending',
      'subscribed',
    ]);
    assert.ok(doc.paths['/api/health'].get.responses['503'].content['application/health+json']);
    assert.ok(doc.paths['/api/newsletter/confirm'].get.responses['200'].content['text/html']);
    assert.ok(
      doc.paths['/api/newsletter/unsubscribe'].post.requestBody.content['application/x-www-form-urlencoded'],
    );
  });
});
