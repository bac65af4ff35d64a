import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { APP, SECRET, shareGateway } from '../helpers/gateway-harness.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';

/**
 * Contract 6.1 on the clouds (6.4): Bedrock's and Vertex's throttling and context overflows reach
 * every door in the form its vendor's clients act on, as the official SDKs raise them. The clouds'
 * own words (from their errors as users report them): Bedrock `ThrottlingException` 429 "Too many
 * requests, please wait before trying again." and `ValidationException` 400 "Input is too long for
 * requested model." (no figures) or, from Claude, "The model returned the following errors: prompt
 * is too long: N tokens > M maximum"; Vertex 429 `RESOURCE_EXHAUSTED` "Quota exceeded for
 * aiplatform.googleapis.com/…", Claude's overflow as a 413 "Prompt is too long" (Anthropic's is a
 * 400) or a 400 with figures, Gemini's 400 `INVALID_ARGUMENT` "The input token count (N) exceeds
 * the maximum number of tokens allowed (M)."
 */
process.env['AWS_ACCESS_KEY_ID'] = TEST_AWS_CREDENTIALS.accessKeyId;
process.env['AWS_SECRET_ACCESS_KEY'] = TEST_AWS_CREDENTIALS.secretAccessKey;
process.env['AWS_SESSION_TOKEN'] = TEST_AWS_CREDENTIALS.sessionToken;
process.env['AWS_EC2_METADATA_DISABLED'] = 'true';

const BEDROCK_CLAUDE = 'provider-a/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_CLAUDE = 'provider-b/claude-sonnet-4-5@20250929';
const VERTEX_GEMINI = 'provider-b/gemini-2.5-flash';
const KEY = `${APP}:${SECRET}`;

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** What makes the cloud refuse the next call, `times` times. */
type Refusal = (times: number) => void;

interface Case {
  name: string;
  model: string;
  throttle: Refusal;
  /** The overflows this cloud answers, with the figures the client must be told (undefined: the gateway's). */
  overflows: { name: string; refuse: Refusal; figures: [number, number] | undefined }[];
  /** Whether the Anthropic door's lane is the cloud's Messages relay (Claude) or a translation. */
  gemini: boolean;
}

describe('the clouds’ throttling and overflows through every door', () => {
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let keyFile: string;
  let origin: string;
  before(async () => {
    bedrock = await startMockBedrock({ region: 'us-east-1' });
    vertex = await startMockVertex();
    keyFile = vertex.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
  });
  const gw = shareGateway(() => ({
    env: {
      PROVIDER_A_KIND: 'bedrock',
      PROVIDER_A_BASE_URL: bedrock.origin,
      PROVIDER_A_REGION: 'us-east-1',
      PROVIDER_B_KIND: 'vertex',
      PROVIDER_B_BASE_URL: vertex.origin,
      PROVIDER_B_PROJECT: vertex.project,
      PROVIDER_B_LOCATION: 'us-east5',
      PROVIDER_B_CREDENTIALS_FILE: keyFile,
    },
    // One retry, so that each throttled request costs the mock two answers; the circuit stays shut.
    file: { retry: { maxRetries: 1 }, circuit: { failureThreshold: 1000 } },
  }));
  before(async () => {
    await gw.gateway.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(gw.gateway.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await Promise.all([bedrock.close(), vertex.close()]);
  });

  const openai = () => new OpenAI({ baseURL: `${origin}/v1`, apiKey: KEY, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: origin, apiKey: KEY, maxRetries: 0 });
  const repeat = (times: number, refuse: () => void) => {
    for (let i = 0; i < times; i++) refuse();
  };
  const vertexRefuses = (status: number, body: unknown) => (times: number) =>
    repeat(times, () => vertex.failNext(status, body));

  const CASES: Case[] = [
    {
      name: 'bedrock (Claude)',
      model: BEDROCK_CLAUDE,
      gemini: false,
      throttle: (times) =>
        repeat(times, () =>
          bedrock.failNext(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
        ),
      overflows: [
        {
          name: 'Input is too long for requested model.',
          refuse: (times) =>
            repeat(times, () =>
              bedrock.failNext(400, 'ValidationException', 'Input is too long for requested model.'),
            ),
          figures: undefined,
        },
        {
          name: 'prompt is too long, with figures',
          refuse: (times) =>
            repeat(times, () =>
              bedrock.failNext(
                400,
                'ValidationException',
                'The model returned the following errors: prompt is too long: 208310 tokens > 200000 maximum',
              ),
            ),
          figures: [208310, 200000],
        },
      ],
    },
    {
      name: 'vertex (Claude)',
      model: VERTEX_CLAUDE,
      gemini: false,
      throttle: vertexRefuses(429, {
        error: {
          code: 429,
          message:
            'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude-sonnet-4-5. Please submit a quota increase request.',
          status: 'RESOURCE_EXHAUSTED',
        },
      }),
      overflows: [
        {
          name: '413 Prompt is too long',
          refuse: vertexRefuses(413, {
            type: 'error',
            error: { type: 'invalid_request_error', message: 'Prompt is too long' },
          }),
          figures: undefined,
        },
        {
          name: '400 prompt is too long, with figures',
          refuse: vertexRefuses(400, {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: 'prompt is too long: 208310 tokens > 200000 maximum',
            },
          }),
          figures: [208310, 200000],
        },
      ],
    },
    {
      name: 'vertex (Gemini)',
      model: VERTEX_GEMINI,
      gemini: true,
      throttle: vertexRefuses(429, {
        error: {
          code: 429,
          message: 'Resource exhausted. Please try again later.',
          status: 'RESOURCE_EXHAUSTED',
        },
      }),
      overflows: [
        {
          name: 'The input token count exceeds the maximum',
          refuse: vertexRefuses(400, {
            error: {
              code: 400,
              message:
                'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
              status: 'INVALID_ARGUMENT',
            },
          }),
          figures: [1200000, 1048576],
        },
      ],
    },
  ];

  /** The door calls of a case: Chat Completions, Responses, Messages (whole and streamed), Gemini's. */
  function calls(model: string): [string, () => Promise<unknown>][] {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    return [
      ['chat completions', () => openai().chat.completions.create({ model, messages })],
      [
        'chat completions streamed',
        () => openai().chat.completions.create({ model, messages, stream: true }),
      ],
      ['responses', () => openai().responses.create({ model, input: 'hi' })],
      ['messages', () => anthropic().messages.create({ model, max_tokens: 16, messages })],
      [
        'messages streamed',
        () =>
          anthropic().messages.create({ model, max_tokens: 16, messages, stream: true }) as Promise<unknown>,
      ],
      ['gemini', () => geminiCall(model)],
    ];
  }

  /** The Gemini door's generateContent; its failure as {status, body, headers}. */
  async function geminiCall(model: string): Promise<unknown> {
    const response = await fetch(`${origin}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const body = await response.json();
    if (response.ok) return body;
    throw { gemini: true, status: response.status, body, headers: response.headers };
  }

  for (const cloud of CASES) {
    it(`${cloud.name}: throttling past the retries is each door's rate limit`, async (t) => {
      for (const [door, call] of calls(cloud.model)) {
        cloud.throttle(2);
        const error = await caught(call());
        t.diagnostic(`${door}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
        if (door.startsWith('chat') || door === 'responses') {
          assert.ok(error instanceof OpenAI.RateLimitError, `${door}: ${String(error)}`);
          assert.equal(error.code, 'rate_limit_exceeded', door);
          assert.match(error.message, /Please try again in \d+(\.\d+)?m?s\.$/, door);
          assert.ok(Number(error.headers.get('retry-after')) >= 1, door);
        } else if (door.startsWith('messages')) {
          assert.ok(error instanceof Anthropic.RateLimitError, `${door}: ${String(error)}`);
          assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error', door);
          assert.ok(Number(error.headers?.get('retry-after')) >= 1, door);
        } else {
          const failure = error as { status: number; body: any; headers: Headers };
          assert.equal(failure.status, 429, JSON.stringify(failure.body));
          assert.equal(failure.body.error.status, 'RESOURCE_EXHAUSTED');
          assert.ok(Number(failure.headers.get('retry-after')) >= 1);
        }
      }
    });

    for (const overflow of cloud.overflows)
      it(`${cloud.name}: "${overflow.name}" is each door's context overflow`, async (t) => {
        for (const [door, call] of calls(cloud.model)) {
          overflow.refuse(1);
          const error = await caught(call());
          t.diagnostic(`${door}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
          const figures = overflow.figures;
          if (door.startsWith('chat') || door === 'responses') {
            assert.ok(error instanceof OpenAI.BadRequestError, `${door}: ${String(error)}`);
            assert.equal(error.code, 'context_length_exceeded', door);
            if (figures !== undefined) {
              assert.match(error.message, new RegExp(`maximum context length is ${figures[1]} tokens`), door);
              assert.match(error.message, new RegExp(`resulted in ${figures[0]} tokens`), door);
            }
          } else if (door.startsWith('messages')) {
            assert.ok(error instanceof Anthropic.BadRequestError, `${door}: ${String(error)}`);
            const body = (error.error as { error: { type: string; message: string } }).error;
            assert.equal(body.type, 'invalid_request_error', door);
            // Claude Code compacts on exactly this form; without the cloud's figures, the gateway's.
            const form = /^prompt is too long: (\d+) tokens > (\d+) maximum/.exec(body.message);
            assert.ok(form !== null, `${door}: ${body.message}`);
            // Without the cloud's figures: the gateway's count, and the window of the price data.
            if (figures !== undefined) assert.deepEqual([Number(form[1]), Number(form[2])], figures, door);
            else assert.equal(Number(form[2]), 200000, door);
          } else {
            const failure = error as { status: number; body: any };
            assert.equal(failure.status, 400, JSON.stringify(failure.body));
            assert.equal(failure.body.error.status, 'INVALID_ARGUMENT');
            assert.match(failure.body.error.message, /input token count.*exceeds the maximum/i);
          }
        }
      });
  }
});
