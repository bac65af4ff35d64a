import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { sseMessages } from './mock-anthropic-server.ts';
import { scriptedEventStream, scriptedMessage } from './mock-anthropic-tools.ts';
import { scriptedGenerateContent, scriptedGenerateContentEvents } from './mock-gemini-tools.ts';
import type { ScriptedReply } from './scripted-reply.ts';

/**
 * A local stand-in for Google Vertex AI and Google's OAuth token endpoint. The token endpoint
 * (`POST /token`, the service account's `token_uri`) takes a JWT-bearer grant and verifies its
 * assertion with the public half of an RSA key generated here (issuer, audience, expiry, RS256);
 * model calls must carry a token it issued. Gemini models answer generateContent,
 * streamGenerateContent (`alt=sse`), countTokens and predict (embeddings); Claude models rawPredict and
 * streamRawPredict with the Messages API's body (`anthropic_version` in it, no `model`).
 * `@google/genai` in Vertex mode and `@anthropic-ai/vertex-sdk` are run against it
 * (test/clients/vertex-mock-sdks.test.ts).
 */
export interface VertexRecordedRequest {
  path: string;
  publisher: 'google' | 'anthropic';
  model: string;
  method: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, any>;
}

export interface MockVertexServer {
  origin: string;
  project: string;
  requests: VertexRecordedRequest[];
  /** Assertions the token endpoint accepted. */
  tokenFetches: number;
  /** Why refused assertions or tokens were refused. */
  refusals: string[];
  /** Writes a service-account key file whose token_uri is this mock's; answers its path. */
  keyFile(dir: string): string;
  replyNext(reply: ScriptedReply): void;
  failNext(status: number, body: unknown): void;
  /** Seconds each issued token lives (default 3600). */
  tokenSeconds: number;
  close(): Promise<void>;
}

const EMAIL = 'gateway-test@test-project.iam.gserviceaccount.com';
/** google-auth-library signs every assertion for Google's endpoint, whatever the key's token_uri. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
// v1beta1 is @google/genai's default version in Vertex mode; Vertex serves both.
const PATH =
  /^\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

type Next = { reply: ScriptedReply } | { status: number; body: unknown };

export async function startMockVertex(options: { project?: string } = {}): Promise<MockVertexServer> {
  const project = options.project ?? 'test-project';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const verifyKey = createPublicKey(publicKey.export({ type: 'spki', format: 'pem' }));
  const issued = new Set<string>();
  const queue: Next[] = [];
  const state = { tokenFetches: 0, tokenSeconds: 3600 };
  const requests: VertexRecordedRequest[] = [];
  const refusals: string[] = [];
  let origin = '';

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname === '/token') {
      const form = new URLSearchParams(raw.toString('utf8'));
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        refusals.push('grant_type');
        return json(response, 400, { error: 'unsupported_grant_type' });
      }
      try {
        await jwtVerify(form.get('assertion') ?? '', verifyKey, {
          issuer: EMAIL,
          audience: [`${origin}/token`, GOOGLE_TOKEN_URL],
          algorithms: ['RS256'],
        });
      } catch (error) {
        refusals.push(`assertion: ${(error as Error).message}`);
        return json(response, 400, { error: 'invalid_grant' });
      }
      state.tokenFetches++;
      const token = `ya29.mock-${state.tokenFetches}-${Math.random().toString(36).slice(2)}`;
      issued.add(token);
      return json(response, 200, {
        access_token: token,
        expires_in: state.tokenSeconds,
        token_type: 'Bearer',
      });
    }
    const bearer = /^Bearer (.+)$/.exec(String(request.headers['authorization'] ?? ''))?.[1];
    if (bearer === undefined || !issued.has(bearer)) {
      refusals.push('token');
      return json(response, 401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      });
    }
    const match = PATH.exec(url.pathname);
    if (match === null || match[1] !== project)
      return json(response, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    const publisher = match[3] as 'google' | 'anthropic';
    const model = decodeURIComponent(match[4] as string);
    const method = match[5] as string;
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return json(response, 400, { error: { code: 400, message: 'bad JSON', status: 'INVALID_ARGUMENT' } });
    }
    requests.push({
      path: url.pathname + url.search,
      publisher,
      model,
      method,
      headers: request.headers,
      raw,
      body,
    });
    if (method === 'predict') {
      const predictions = (body.instances ?? []).map((instance: { content: string }) => ({
        embeddings: {
          values: [instance.content.length / 10, 0.5, -0.25],
          statistics: { token_count: 2, truncated: false },
        },
      }));
      return json(response, 200, { predictions });
    }
    if (method === 'countTokens' && publisher === 'google') {
      // Vertex's count: one token per four characters of text here, so a test tells it from the gateway's.
      let characters = 0;
      for (const content of body.contents ?? [])
        for (const part of content?.parts ?? [])
          if (typeof part?.text === 'string') characters += part.text.length;
      return json(response, 200, {
        totalTokens: Math.ceil(characters / 4),
        totalBillableCharacters: characters,
      });
    }
    const next = queue.shift() ?? { reply: { text: 'Hello from Vertex.' } };
    if ('status' in next) return json(response, next.status, next.body);
    if (publisher === 'anthropic') {
      const version = String(body.anthropic_version);
      if ((version !== 'vertex-2023-10-16' && !/^\d{4}-\d{2}-\d{2}$/.test(version)) || 'model' in body)
        return json(response, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'anthropic_version: vertex-2023-10-16 is required; model is not permitted',
          },
        });
      if (method === 'rawPredict') return json(response, 200, { ...scriptedMessage(next.reply), model });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of sseMessages(scriptedEventStream(next.reply)))
        response.write(`event: ${event.event}\ndata: ${event.data}\n\n`);
      response.end();
      return;
    }
    if (method === 'generateContent') return json(response, 200, scriptedGenerateContent(next.reply));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of scriptedGenerateContentEvents(next.reply)) response.write(event);
    response.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mock: MockVertexServer = {
    origin,
    project,
    requests,
    get tokenFetches() {
      return state.tokenFetches;
    },
    refusals,
    get tokenSeconds() {
      return state.tokenSeconds;
    },
    set tokenSeconds(seconds: number) {
      state.tokenSeconds = seconds;
    },
    keyFile(dir) {
      const path = join(dir, 'service-account.json');
      writeFileSync(
        path,
        JSON.stringify({
          type: 'service_account',
          project_id: project,
          private_key_id: 'test-key-1',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
          client_email: EMAIL,
          client_id: '1234567890',
          token_uri: `${origin}/token`,
        }),
      );
      return path;
    },
    replyNext: (reply) => queue.push({ reply }),
    failNext: (status, body) => queue.push({ status, body }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  return mock;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
