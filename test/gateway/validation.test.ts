import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareGateway } from '../helpers/gateway-harness.ts';

const msgs = [{ role: 'user', content: 'hi' }];
const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };

interface Case {
  name: string;
  url: string;
  body: unknown;
  /** Every path that must be reported (JSON Pointers). */
  paths: string[];
  /** A word the message for the first path must contain. */
  mentions?: string;
}

const cases: Case[] = [
  // ChatRequest
  { name: 'messages missing', url: '/v1/chat', body: {}, paths: [''], mentions: 'messages' },
  { name: 'messages empty', url: '/v1/chat', body: { messages: [] }, paths: ['/messages'], mentions: '1' },
  {
    name: 'messages not an array',
    url: '/v1/chat',
    body: { messages: 'hi' },
    paths: ['/messages'],
    mentions: 'array',
  },
  {
    name: 'message role invalid',
    url: '/v1/chat',
    body: { messages: [{ role: 'robot', content: 'x' }] },
    paths: ['/messages/0/role'],
    mentions: 'tool',
  },
  {
    name: 'message role missing',
    url: '/v1/chat',
    body: { messages: [{ content: 'x' }] },
    paths: ['/messages/0'],
    mentions: 'role',
  },
  {
    name: 'message content missing',
    url: '/v1/chat',
    body: { messages: [{ role: 'user' }] },
    paths: ['/messages/0'],
    mentions: 'content',
  },
  {
    name: 'message content not a string',
    url: '/v1/chat',
    body: { messages: [{ role: 'user', content: 5 }] },
    paths: ['/messages/0/content'],
    mentions: 'string',
  },
  {
    name: 'message name not a string',
    url: '/v1/chat',
    body: { messages: [{ role: 'user', content: 'x', name: 1 }] },
    paths: ['/messages/0/name'],
  },
  {
    name: 'message is not an object',
    url: '/v1/chat',
    body: { messages: ['hi'] },
    paths: ['/messages/0'],
    mentions: 'object',
  },
  {
    name: 'provider unknown',
    url: '/v1/chat',
    body: { messages: msgs, provider: 'provider-d' },
    paths: ['/provider'],
    mentions: 'provider-a',
  },
  {
    name: 'temperature below 0',
    url: '/v1/chat',
    body: { messages: msgs, temperature: -0.1 },
    paths: ['/temperature'],
    mentions: '>=',
  },
  {
    name: 'temperature above 2',
    url: '/v1/chat',
    body: { messages: msgs, temperature: 2.01 },
    paths: ['/temperature'],
    mentions: '<=',
  },
  {
    name: 'temperature as a string',
    url: '/v1/chat',
    body: { messages: msgs, temperature: '1' },
    paths: ['/temperature'],
    mentions: 'number',
  },
  {
    name: 'maxTokens zero',
    url: '/v1/chat',
    body: { messages: msgs, maxTokens: 0 },
    paths: ['/maxTokens'],
    mentions: '>=',
  },
  {
    name: 'maxTokens fractional',
    url: '/v1/chat',
    body: { messages: msgs, maxTokens: 1.5 },
    paths: ['/maxTokens'],
    mentions: 'integer',
  },
  {
    name: 'stream not boolean',
    url: '/v1/chat',
    body: { messages: msgs, stream: 'true' },
    paths: ['/stream'],
    mentions: 'boolean',
  },
  {
    name: 'metadata not an object',
    url: '/v1/chat',
    body: { messages: msgs, metadata: [1] },
    paths: ['/metadata'],
    mentions: 'object',
  },
  { name: 'task not a string', url: '/v1/chat', body: { messages: msgs, task: 3 }, paths: ['/task'] },
  { name: 'model not a string', url: '/v1/chat', body: { messages: msgs, model: {} }, paths: ['/model'] },
  {
    name: 'unknown field',
    url: '/v1/chat',
    body: { messages: msgs, max_tokens: 5 },
    paths: ['/max_tokens'],
    mentions: 'allowed',
  },
  { name: 'body is an array', url: '/v1/chat', body: [msgs], paths: [''], mentions: 'object' },
  {
    name: 'every failing field at once',
    url: '/v1/chat',
    body: { messages: [{ role: 'x', content: 1 }], temperature: 9, maxTokens: -1 },
    paths: ['/messages/0/role', '/messages/0/content', '/temperature', '/maxTokens'],
  },
  // EmbedRequest
  { name: 'input missing', url: '/v1/embed', body: {}, paths: [''], mentions: 'input' },
  { name: 'input empty string', url: '/v1/embed', body: { input: '' }, paths: ['/input'], mentions: '1' },
  { name: 'input empty array', url: '/v1/embed', body: { input: [] }, paths: ['/input'], mentions: '1' },
  {
    name: 'input array with an empty string',
    url: '/v1/embed',
    body: { input: ['a', ''] },
    paths: ['/input/1'],
  },
  {
    name: 'input array with a number',
    url: '/v1/embed',
    body: { input: ['a', 2] },
    paths: ['/input/1'],
    mentions: 'string',
  },
  {
    name: 'input a number',
    url: '/v1/embed',
    body: { input: 7 },
    paths: ['/input'],
    mentions: 'string or array',
  },
  {
    name: 'embed provider unknown',
    url: '/v1/embed',
    body: { input: 'a', provider: 'openai' },
    paths: ['/provider'],
  },
  {
    name: 'embed metadata not an object',
    url: '/v1/embed',
    body: { input: 'a', metadata: 'x' },
    paths: ['/metadata'],
  },
  // JsonRequest
  { name: 'schema missing', url: '/v1/json', body: { messages: msgs }, paths: [''], mentions: 'schema' },
  {
    name: 'schema not an object',
    url: '/v1/json',
    body: { messages: msgs, schema: 'object' },
    paths: ['/schema'],
    mentions: 'object',
  },
  { name: 'json messages empty', url: '/v1/json', body: { messages: [], schema }, paths: ['/messages'] },
  {
    name: 'json temperature above 2',
    url: '/v1/json',
    body: { messages: msgs, schema, temperature: 3 },
    paths: ['/temperature'],
  },
  {
    name: 'json provider unknown',
    url: '/v1/json',
    body: { messages: msgs, schema, provider: 'x' },
    paths: ['/provider'],
  },
  {
    name: 'json maxTokens is not a JsonRequest field',
    url: '/v1/json',
    body: { messages: msgs, schema, maxTokens: 5 },
    paths: ['/maxTokens'],
  },
];

describe('request validation (400 invalid_request with JSON Pointer field paths)', () => {
  const gw = shareGateway();

  for (const c of cases) {
    it(`${c.url}: ${c.name}`, async () => {
      const res = await gw.post(c.url, c.body);
      assert.equal(res.status, 400, res.text);
      const { error } = res.body;
      assert.equal(error.code, 'invalid_request');
      assert.equal(typeof error.message, 'string');
      assert.ok(Array.isArray(error.details), 'details lists the failing fields');
      const paths = error.details.map((d: { path: string }) => d.path);
      for (const path of c.paths)
        assert.ok(paths.includes(path), `expected ${path} in ${JSON.stringify(error.details)}`);
      for (const d of error.details) assert.equal(typeof d.message, 'string');
      if (c.mentions !== undefined) {
        const first = error.details.find((d: { path: string }) => d.path === c.paths[0]);
        assert.match(first.message, new RegExp(c.mentions.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      }
    });
  }

  it('accepts the boundaries: temperature 0 and 2, maxTokens 1, every role, empty content', async () => {
    const messages = ['system', 'user', 'assistant', 'tool'].map((role) => ({
      role,
      content: '',
      name: 'n',
    }));
    for (const temperature of [0, 2]) {
      const res = await gw.chat({
        messages,
        temperature,
        maxTokens: 1,
        stream: false,
        metadata: { any: { nested: [1] } },
      });
      assert.equal(res.status, 200, res.text);
    }
  });
});
