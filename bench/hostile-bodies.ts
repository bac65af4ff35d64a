/**
 * The hostile requests of the stall issue, as bodies for /v1/chat and /v1/json: each once
 * froze every other request for seconds (or for good). Built once, before any clock starts.
 */
export interface HostileCase {
  name: string;
  path: string;
  body: string;
}

export function randomText(length: number, seed: number): string {
  let state = seed;
  const codes = new Uint16Array(length);
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    codes[i] = 33 + ((state >>> 8) % 94);
  }
  return new TextDecoder('utf-16le').decode(codes);
}

/** Nested as text: JSON.stringify overflows the stack on a value this deep. */
function nestedSchemaText(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/**
 * What an agent pastes from a log or a data export: every line has a timestamp, an order number,
 * an address and a phone number, so the guardrails' number and e-mail readers work on every line
 * (the most a built-in guard reads per character; `--guards`).
 */
export function logLines(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `2026-12-07T09:${String(n % 60).padStart(2, '0')}:00Z order ${100000 + n} user${n}@example.com +1 415 555 ${String(1000 + (n % 9000))} paid 4111 1111 1111 ${String(1000 + (n % 9000))}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

const ASK = JSON.stringify([{ role: 'user', content: 'Give me the value.' }]);
const chat = (content: string): string => JSON.stringify({ messages: [{ role: 'user', content }] });
const json = (schema: unknown): string => JSON.stringify({ messages: JSON.parse(ASK), schema });

export function hostileCases(): HostileCase[] {
  return [
    { name: 'prompt: 100 kB of one letter', path: '/v1/chat', body: chat('a'.repeat(100_000)) },
    { name: 'prompt: 1 MiB random', path: '/v1/chat', body: chat(randomText(1024 * 1024, 1)) },
    {
      name: 'prompt: 1 MiB of log lines (numbers, addresses)',
      path: '/v1/chat',
      body: chat(logLines(1024 * 1024)),
    },
    { name: 'prompt: 4 MiB of one letter', path: '/v1/chat', body: chat('a'.repeat(4 * 1024 * 1024 - 200)) },
    {
      name: 'json: backtracking pattern',
      path: '/v1/json',
      body: json({ type: 'string', pattern: '^([a-z ]|[a-z ])*X$', minLength: 26 }),
    },
    { name: 'json: {"$ref": "#"}', path: '/v1/json', body: json({ $ref: '#' }) },
    {
      name: 'json: recursive $ref fan-out',
      path: '/v1/json',
      body: json({
        $defs: {
          n: {
            type: 'object',
            properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#/$defs/n' }, c: { $ref: '#/$defs/n' } },
          },
        },
        $ref: '#/$defs/n',
      }),
    },
    { name: 'json: minLength 100000', path: '/v1/json', body: json({ type: 'string', minLength: 100_000 }) },
    {
      name: 'json: minProperties 10000',
      path: '/v1/json',
      body: json({ type: 'object', minProperties: 10_000 }),
    },
    {
      name: 'json: nested 6,000 levels',
      path: '/v1/json',
      body: `{"messages":${ASK},"schema":${nestedSchemaText(6000)}}`,
    },
  ];
}
