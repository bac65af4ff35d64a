import secureJson from 'secure-json-parse';

/**
 * A request body's JSON as Fastify's default parser reads it (`getDefaultJsonParser('error',
 * 'error')`): a leading byte-order mark skipped, `__proto__` and `constructor.prototype` keys
 * refused (prototype poisoning); throws on anything that is not JSON. The same function on the
 * event loop and on the JSON thread, so a body gets the same answer whichever reads it.
 */
export function parseJsonBody(text: string): unknown {
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}
