import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonBytesFault } from './json-bytes-fault.ts';
import { parseJsonBody } from './parse-json-body.ts';

/** Whether parseJsonBody (Fastify's default parse) accepts the bytes. */
function parses(bytes: Buffer): boolean {
  try {
    parseJsonBody(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function agrees(bytes: Buffer): void {
  const fault = jsonBytesFault(bytes);
  assert.equal(
    fault === undefined,
    parses(bytes),
    `${JSON.stringify(bytes.toString('latin1').slice(0, 200))}: the walk says ${fault ?? 'JSON'}`,
  );
}

const CASES = [
  // Values and whitespace.
  '{}',
  '[]',
  ' \t\r\n{ "a" : [ 1 , 2 ] } \n',
  '"text"',
  '0',
  '-0',
  '-0.5e-7',
  '1E+2',
  '12.50',
  'true',
  'false',
  'null',
  '',
  ' ',
  '{',
  '}',
  '[1,]',
  '{"a":1,}',
  '{,"a":1}',
  '[,1]',
  '{"a" 1}',
  '{"a":}',
  '{1:2}',
  "{'a':1}",
  '01',
  '-',
  '1.',
  '.5',
  '1e',
  '1e+',
  '+1',
  '0x10',
  'NaN',
  'Infinity',
  'tru',
  'nulls',
  'True',
  '[1 2]',
  '{"a":1 "b":2}',
  '"a" "b"',
  '{}{}',
  '[]]',
  '\u000b{}',
  '\u00a0{}',
  // Strings and escapes.
  '"\\u00e9\\n\\t\\"\\\\\\/\\b\\f\\r"',
  '"\\u00g0"',
  '"\\u00"',
  '"\\x41"',
  '"\\a"',
  '"\\\'"',
  '"unclosed',
  '"raw\ttab"',
  '"raw\nnewline"',
  '"\u007f and \u2028 and 😀"',
  '"\\ud800"',
  // Prototype poisoning, as secure-json-parse refuses it.
  '{"__proto__":{"x":1}}',
  '{"__proto__":null}',
  '{"\\u005f_proto__":1}',
  '{"\\u005F\\u005Fproto\\u005f\\u005f" : 1}',
  '[{"a":{"__proto__":1}}]',
  '{"__proto":1,"proto__":2,"__proto__ ":3}',
  '{"constructor":{"prototype":{}}}',
  '{"constructor":{"prototype":null}}',
  '{"\\u0063onstructor":{"\\u0070rototype":1}}',
  '{"constructor":{"prototype":1},"constructor":1}',
  '{"constructor":1,"constructor":{"prototype":1}}',
  '{"constructor":{"a":{"prototype":1}}}',
  '{"constructor":[{"prototype":1}]}',
  '{"constructor":"prototype"}',
  '{"constructor":null}',
  '{"constructor":{}}',
  '{"prototype":1}',
  '{"a":{"constructor":{"prototype":1}}}',
  '[[[{"b":[{"constructor":{"x":[],"prototype":[]}}]}]]]',
  '{"constructor":{"prototype":1,"constructor":{"prototype":1}}}',
];

describe('the byte check of a lane body (json-bytes-fault.ts)', () => {
  it('accepts exactly what parseJsonBody accepts, case by case', () => {
    for (const text of CASES) agrees(Buffer.from(text));
  });

  it('takes a leading byte-order mark as the parser does, and bytes that are not UTF-8 as it decodes them', () => {
    agrees(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"a":1}')]));
    agrees(Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...Buffer.from('{}')]));
    agrees(Buffer.from([0xef, 0xbb, ...Buffer.from('{}')]));
    agrees(Buffer.from([0x22, 0xff, 0xfe, 0xc3, 0x22]));
    agrees(Buffer.from([0x7b, 0xff, 0x7d]));
    agrees(Buffer.from([0x22, 0xc0, 0x8a, 0x22]));
  });

  it('walks 100,000 levels of nesting without recursion', () => {
    const depth = 100_000;
    agrees(Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`));
    agrees(Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
    agrees(Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`));
    const poisoned = `${'{"a":'.repeat(depth)}{"constructor":{"prototype":1}}${'}'.repeat(depth)}`;
    assert.notEqual(jsonBytesFault(Buffer.from(poisoned)), undefined);
  });

  it('agrees with the parser on 20,000 seeded mutations of agent bodies', () => {
    let seed = 20261207;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const bodies = [
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        stream: true,
        system: [
          { type: 'text', text: 'You are "careful".\nTabs:\there', cache_control: { type: 'ephemeral' } },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'é 😀 \u2028 \\ / "quoted"' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: '/a' } }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't1', content: '1.5e3 -0 true null' }],
          },
        ],
        tools: [{ name: 'read', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
        metadata: { user_id: 'u-1' },
        constructor: { note: 1 },
      }),
      '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":0.2,"topK":-1E+2}}',
      '[{"__prot":1},{"constructo":{"prototype":1}},{"a":[1,2,{"b":null}]}]',
    ];
    const alphabet = [...'{}[]":,\\u0123456789abcdefABCDEF-+.eEtrufalsn _proc\n\t\r'];
    for (let round = 0; round < 20_000; round++) {
      const base = bodies[round % bodies.length] as string;
      let text = base;
      const edits = 1 + Math.floor(random() * 3);
      for (let edit = 0; edit < edits; edit++) {
        const at = Math.floor(random() * (text.length + 1));
        const piece = alphabet[Math.floor(random() * alphabet.length)] as string;
        const kind = random();
        if (kind < 0.4) text = `${text.slice(0, at)}${text.slice(at + 1)}`;
        else if (kind < 0.7) text = `${text.slice(0, at)}${piece}${text.slice(at)}`;
        else text = `${text.slice(0, at)}${piece}${text.slice(at + 1)}`;
      }
      agrees(Buffer.from(text));
    }
  });
});
