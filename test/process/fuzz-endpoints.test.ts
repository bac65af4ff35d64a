import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { type Application, buildApplication } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { errorStatus } from '../../src/platform/errors.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { type FuzzRequest, type FuzzTarget, fuzzRequests } from '../helpers/fuzz-requests.ts';
import { writeConfigFile } from '../helpers/gateway-harness.ts';
import { listRoutes } from '../helpers/route-list.ts';

/**
 * Thousands of almost-right requests per endpoint of both surfaces, as a hostile or careless client
 * sends them: no answer is a 5xx, every non-2xx is the envelope with a catalogue code (JSON-RPC's own
 * error object on /mcp), every answer has an x-request-id, and each is answered within 2 s.
 * FUZZ_RUNS sets the number of requests per endpoint (default 2,000); FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
// CI replays one fixed run, so a landing is never decided by which requests a seed happened to
// draw; elsewhere each run draws new ones (FUZZ_SEED replays any run, fast-check prints its seed).
const SEED =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261125 : undefined;
const ANSWER_WITHIN_MS = 2_000;

const APP = 'fuzz-app';
const SECRET = 'fuzz-secret-0123456789';
const AUTH = { 'x-gateway-app': APP, 'x-gateway-secret': SECRET };
const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_HEADERS = {
  ...JSON_TYPE,
  accept: 'application/json, text/event-stream',
  origin: 'http://localhost:3000',
};

const chatBody = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello.' },
  ],
  task: 'default',
  maxTokens: 16,
  temperature: 0.5,
  metadata: { team: 'fuzz' },
};

/** Google's clients send the key in x-goog-api-key. */
const GOOGLE_KEY = { 'x-goog-api-key': `${APP}:${SECRET}` };

function geminiBody(): Record<string, unknown> {
  return {
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'Say hello.' }] },
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { found: true } } }] },
    ],
    tools: [
      {
        functionDeclarations: [
          { name: 'lookup', parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } } },
        ],
      },
    ],
    generationConfig: { temperature: 0.5, maxOutputTokens: 32, thinkingConfig: { thinkingBudget: 1024 } },
  };
}

/** The body or query a valid call sends, per route and method; routes absent here take no body. */
const VALID_CALLS: Record<string, Omit<FuzzTarget, 'surface' | 'method' | 'route' | 'path'>> = {
  'gateway POST /v1/chat': { body: chatBody, headers: { ...AUTH, ...JSON_TYPE } },
  'gateway POST /v1/embed': {
    body: { input: ['one', 'two'], task: 'default' },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/json': {
    body: {
      messages: [{ role: 'user', content: 'A person.' }],
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', pattern: '^[A-Z][a-z]+$' },
          age: { type: 'integer', minimum: 0 },
        },
        required: ['name', 'age'],
      },
      maxAttempts: 2,
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/chat/completions': {
    body: {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      ],
      max_tokens: 20,
      stop: ['\n\n'],
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/embeddings': {
    body: {
      model: 'text-embedding-3-small',
      input: ['one', 'two'],
      encoding_format: 'base64',
      dimensions: 8,
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/messages': {
    body: {
      model: 'simulated-chat',
      max_tokens: 16,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: 'Say hello.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }] },
      ],
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      temperature: 0.5,
      metadata: { user_id: 'fuzz' },
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/messages/count_tokens': {
    body: {
      model: 'simulated-chat',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello.' }],
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway GET /v1/usage': {
    query: { from: '2026-01-01', to: '2026-01-31', groupBy: 'day,model' },
    headers: AUTH,
  },
  'gateway POST /v1/responses': {
    body: {
      model: 'simulated-chat',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'developer', content: 'Answer in one line.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'found' },
      ],
      tools: [
        {
          type: 'function',
          name: 'lookup',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
        { type: 'web_search' },
      ],
      max_output_tokens: 32,
      store: false,
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  // Not served (CONTRACT 5.4): a 404 in OpenAI's shape, whatever comes.
  'gateway POST /v1/responses/compact': {
    body: { model: 'simulated-chat', input: 'Say hello.' },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  // The Gemini door (CONTRACT 6.3): a generateContent with a function call and its response.
  'gateway POST /v1beta/models/:head': { body: geminiBody(), headers: { ...GOOGLE_KEY, ...JSON_TYPE } },
  'gateway POST /v1beta/models/:head/:tail': { body: geminiBody(), headers: { ...GOOGLE_KEY, ...JSON_TYPE } },
  'gateway POST /v1/models/:head': { body: geminiBody(), headers: { ...GOOGLE_KEY, ...JSON_TYPE } },
  'gateway POST /v1/models/:head/:tail': { body: geminiBody(), headers: { ...GOOGLE_KEY, ...JSON_TYPE } },
  // Files and batches (CONTRACT 6.7): a Message Batch of one request, a batch naming a file that
  // is not there (404), an upload that is not multipart (415), and cancels of batches never made.
  'gateway POST /v1/messages/batches': {
    body: {
      requests: [
        {
          custom_id: 'one',
          params: { model: 'simulated-chat', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] },
        },
      ],
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/messages/batches/:id/cancel': { body: {}, headers: { ...AUTH, ...JSON_TYPE } },
  'gateway POST /v1/files': { body: { purpose: 'batch' }, headers: { ...AUTH, ...JSON_TYPE } },
  'gateway POST /v1/batches': {
    body: {
      input_file_id: 'file-0123456789abcdef',
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    },
    headers: { ...AUTH, ...JSON_TYPE },
  },
  'gateway POST /v1/batches/:id/cancel': { body: {}, headers: { ...AUTH, ...JSON_TYPE } },
  // The MCP gateway with no upstream configured: it lists nothing and knows no tool.
  'gateway POST /mcp': {
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'kit__echo', arguments: { text: 'x' } },
    },
    headers: { ...AUTH, ...MCP_HEADERS },
  },
  'site POST /api/newsletter': { body: { email: 'reader@example.com' }, headers: JSON_TYPE },
  'site POST /api/newsletter/unsubscribe': { query: { token: 'x' }, headers: JSON_TYPE },
  'site GET /api/newsletter/confirm': { query: { token: 'x' } },
  'site GET /api/newsletter/unsubscribe': { query: { token: 'x' } },
  'site POST /mcp': {
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_pages', arguments: { kind: 'policy', limit: 2 } },
    },
    headers: MCP_HEADERS,
  },
};

/** Routes Fastify's tree prints by their last segment only, as registered. */
const FULL_ROUTES: Record<string, string> = { '*': '/.well-known/agent-skills/:name/*' };

/** Concrete paths for routes with parameters. */
const PATHS: Record<string, string> = {
  '/.well-known/agent-skills/:name': '/.well-known/agent-skills/inference-gateway.tar.gz',
  '/.well-known/agent-skills/:name/SKILL.md': '/.well-known/agent-skills/inference-gateway/SKILL.md',
  '/.well-known/agent-skills/:name/*': '/.well-known/agent-skills/inference-gateway/SKILL.md',
  '/v1/responses/:id': '/v1/responses/resp_0123456789abcdef0123456789abcdef',
  '/v1beta/models/:head': '/v1beta/models/simulated-chat:generateContent',
  '/v1beta/models/:head/:tail': '/v1beta/models/provider-a/simulated-chat:generateContent',
  '/v1/models/:head': '/v1/models/simulated-chat:generateContent',
  '/v1/models/:head/:tail': '/v1/models/provider-a/simulated-chat:generateContent',
  '/v1/messages/batches/:id/cancel': '/v1/messages/batches/msgbatch_0123456789abcdef/cancel',
  '/v1/batches/:id/cancel': '/v1/batches/batch_0123456789abcdef/cancel',
  '/v1/responses/:id/input_items': '/v1/responses/resp_0123456789abcdef0123456789abcdef/input_items',
};

// Built before the tests are declared: the routes it serves decide which tests there are.
const configFile = writeConfigFile({
  limits: { apps: { [APP]: { requestsPerMinute: 1_000_000, tokensPerMinute: 1_000_000_000 } } },
});
const application: Application = await buildApplication(
  loadConfig(
    {
      DATA_DIR: ':memory:',
      LOG_LEVEL: 'silent',
      GATEWAY_APPS: `${APP}:${SECRET}`,
      NEWSLETTER_RATE_LIMIT_PER_MINUTE: '1000000',
      CONFIG_FILE: configFile,
    },
    [],
  ),
  createLogger({ level: 'silent' }),
  // A client past its failed credential checks gets 429 late (decision 0013); the fuzz checks the
  // answers, not their pacing, and sends its requests one after another.
  { credentialChecks: { throttledAnswerDelayMs: 0 } },
);
const surfaces: Partial<Record<FuzzTarget['surface'], FastifyInstance>> = {};
if (application.gateway !== undefined) surfaces.gateway = application.gateway;
if (application.site !== undefined) surfaces.site = application.site;

after(async () => {
  await application.close();
});

function targetsOf(surface: FuzzTarget['surface']): FuzzTarget[] {
  const app = surfaces[surface];
  if (app === undefined) throw new Error(`${surface} not built`);
  return listRoutes(app)
    .filter(({ method }) => method !== 'HEAD' && method !== 'OPTIONS')
    .map(({ route: listed, method }) => {
      const route = FULL_ROUTES[listed] ?? listed;
      const valid = VALID_CALLS[`${surface} ${method} ${route}`];
      if (['POST', 'PUT', 'PATCH'].includes(method) && valid === undefined) {
        throw new Error(`no valid call for ${surface} ${method} ${route}: add one to VALID_CALLS`);
      }
      return { surface, method, route, path: PATHS[route] ?? route, ...valid };
    });
}

const ANTHROPIC_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
]);

/** What every answer to a fuzzed request must be. */
function checkAnswer(
  request: FuzzRequest,
  answer: { statusCode: number; headers: Record<string, unknown>; body: string },
  ms: number,
): void {
  const where = `${request.method} ${request.url.slice(0, 120)} -> ${answer.statusCode} ${answer.body.slice(0, 200)}`;
  assert.ok(ms < ANSWER_WITHIN_MS, `answered in ${ms.toFixed(0)} ms: ${where}`);
  assert.equal(typeof answer.headers['x-request-id'], 'string', `no x-request-id: ${where}`);
  assert.ok(answer.statusCode < 500, `server error: ${where}`);
  if (answer.statusCode < 400 || request.method === 'HEAD') return;
  const body = JSON.parse(answer.body) as {
    type?: unknown;
    error?: { code?: unknown; type?: unknown; message?: unknown };
    jsonrpc?: unknown;
  };
  if (body.type === 'error') {
    // The Anthropic-compatible door answers in Anthropic's error shape, with the catalogue's status.
    assert.ok(request.url.startsWith('/v1/messages'), `Anthropic's error shape off its door: ${where}`);
    assert.ok(
      typeof body.error?.type === 'string' && ANTHROPIC_ERROR_TYPES.has(body.error.type),
      `not an Anthropic error type: ${where}`,
    );
    assert.ok(
      Object.values(errorStatus).includes(answer.statusCode as never),
      `status off the catalogue: ${where}`,
    );
    assert.equal(typeof body.error?.message, 'string', `Anthropic error without a message: ${where}`);
    return;
  }
  if (/^\/v1(beta)?\/models/.test(request.url) && typeof body.error?.code === 'number') {
    // The Gemini door answers in Google's shape: the HTTP status as `code`, its name as `status`.
    const google = body.error as { code: number; status?: unknown };
    assert.equal(google.code, answer.statusCode, `code and status disagree: ${where}`);
    assert.ok(
      typeof google.status === 'string' && /^[A-Z_]+$/.test(google.status),
      `no status name: ${where}`,
    );
    assert.equal(typeof body.error?.message, 'string', `Google error without a message: ${where}`);
    return;
  }
  if (request.url.startsWith('/mcp') && body.jsonrpc === '2.0') {
    assert.equal(typeof body.error?.code, 'number', `JSON-RPC error without a code: ${where}`);
    return;
  }
  const code = body.error?.code;
  if (code === 'rate_limit_exceeded') {
    // The OpenAI doors word a 429 as OpenAI does (CONTRACT 6.1): the wait in the message and Retry-After.
    assert.equal(answer.statusCode, 429, `code and status disagree: ${where}`);
    assert.match(String(body.error?.message), /Please try again in \d+(\.\d+)?m?s\.$/, where);
    assert.ok(answer.headers['retry-after'] !== undefined, `a 429 without Retry-After: ${where}`);
    return;
  }
  assert.ok(typeof code === 'string' && Object.hasOwn(errorStatus, code), `not a catalogue code: ${where}`);
  assert.equal(
    errorStatus[code as keyof typeof errorStatus],
    answer.statusCode,
    `code and status disagree: ${where}`,
  );
  assert.equal(typeof body.error?.message, 'string', `envelope without a message: ${where}`);
}

for (const surface of ['gateway', 'site'] as const) {
  describe(`fuzzing every ${surface} endpoint (${RUNS} requests each)`, () => {
    const targets = targetsOf(surface);

    it('covers every route the surface serves', () => {
      assert.ok(targets.length >= (surface === 'gateway' ? 6 : 20), `only ${targets.length} targets`);
    });

    for (const target of targets) {
      it(`${target.method} ${target.route}: the envelope, quickly, never a 5xx`, async (t) => {
        const app = surfaces[surface] as FastifyInstance;
        const delay = monitorEventLoopDelay({ resolution: 10 });
        delay.enable();
        await fc.assert(
          fc.asyncProperty(fuzzRequests(target), async (request) => {
            const started = performance.now();
            const answer = await app.inject({
              method: request.method as 'GET',
              url: request.url,
              headers: request.headers,
              ...(request.payload === undefined ? {} : { payload: request.payload }),
            });
            checkAnswer(request, answer, performance.now() - started);
            // inject() settles in microtasks: without a turn of the event loop between requests, timers
            // (and so the delay monitor) would starve, and the run would read as one long stall.
            await new Promise((resolve) => setImmediate(resolve));
          }),
          { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
        );
        delay.disable();
        const maxMs = delay.max / 1e6;
        t.diagnostic(
          `event-loop delay: p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${maxMs.toFixed(1)} ms`,
        );
        assert.ok(maxMs < ANSWER_WITHIN_MS, `the event loop stalled for ${maxMs.toFixed(0)} ms`);
      });
    }
  });
}
