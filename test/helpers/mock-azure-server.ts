import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MockOpenAIServer, startMockOpenAI } from './mock-openai-server.ts';

/**
 * A local stand-in for an Azure OpenAI resource and Microsoft Entra ID: the resource's v1 API
 * (`/openai/v1/chat/completions`, `/openai/v1/embeddings`) and its deployments API
 * (`/openai/deployments/<name>/…?api-version=`), answered by the recording OpenAI mock behind it
 * (scripting, tools and streams as there), and the tenant's token endpoint
 * (`/<tenant>/oauth2/v2.0/token`, client credentials). A request needs the resource's `api-key`
 * or a token the endpoint issued (the v1 API also the key as a bearer); the deployments API needs `api-version`. `openai`'s `AzureOpenAI`
 * client is run against it (test/clients/azure-mock-sdks.test.ts).
 */
export interface AzureRecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The deployment named in the path (deployments API) or the body's model (v1). */
  deployment: string | undefined;
  apiVersion: string | null;
}

export interface MockAzureServer {
  origin: string;
  openai: MockOpenAIServer;
  requests: AzureRecordedRequest[];
  tokenFetches: number;
  refusals: string[];
  close(): Promise<void>;
}

export const AZURE_TEST = {
  apiKey: 'azure-test-key-0123456789',
  tenantId: 'test-tenant',
  clientId: 'test-client',
  clientSecret: 'entra-test-secret-abcdef',
} as const;

const DEPLOYMENT = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;
const V1 = /^\/openai\/v1\/(chat\/completions|embeddings)$/;

export async function startMockAzure(): Promise<MockAzureServer> {
  const openai = await startMockOpenAI();
  const inner = new URL(openai.baseUrl);
  const issued = new Set<string>();
  const requests: AzureRecordedRequest[] = [];
  const refusals: string[] = [];
  const state = { tokenFetches: 0 };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(request.url ?? '/', 'http://azure');
    const deny = (status: number, code: string, message: string) => {
      refusals.push(code);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code, message } }));
    };
    if (url.pathname === `/${AZURE_TEST.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(raw.toString('utf8'));
      const valid =
        form.get('grant_type') === 'client_credentials' &&
        form.get('client_id') === AZURE_TEST.clientId &&
        form.get('client_secret') === AZURE_TEST.clientSecret &&
        form.get('scope') === 'https://cognitiveservices.azure.com/.default';
      if (!valid) return deny(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
      state.tokenFetches++;
      const token = `entra-token-${state.tokenFetches}`;
      issued.add(token);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ token_type: 'Bearer', expires_in: 3599, access_token: token }));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(String(request.headers['authorization'] ?? ''))?.[1];
    const deployment = DEPLOYMENT.exec(url.pathname);
    const v1 = V1.exec(url.pathname);
    // The v1 API also takes the key as a bearer: the plain OpenAI client sends it that way.
    const keyAsBearer = v1 !== null && bearer === AZURE_TEST.apiKey;
    if (
      request.headers['api-key'] !== AZURE_TEST.apiKey &&
      !keyAsBearer &&
      (bearer === undefined || !issued.has(bearer))
    )
      return deny(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint.');
    const apiVersion = url.searchParams.get('api-version');
    if (deployment !== null && apiVersion === null) return deny(404, '404', 'Resource not found');
    if (deployment === null && v1 === null) return deny(404, '404', 'Resource not found');
    const operation = (deployment?.[2] ?? v1?.[1]) as string;
    let model: string | undefined;
    try {
      model = JSON.parse(raw.toString('utf8')).model;
    } catch {
      model = undefined;
    }
    requests.push({
      path: url.pathname + url.search,
      headers: request.headers,
      deployment: deployment === null ? model : decodeURIComponent(deployment[1] as string),
      apiVersion,
    });
    const forwarded = httpRequest(
      {
        host: inner.hostname,
        port: inner.port,
        method: 'POST',
        path: `/v1/${operation}`,
        headers: { 'content-type': 'application/json', 'content-length': raw.length },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.end(raw);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    openai,
    requests,
    get tokenFetches() {
      return state.tokenFetches;
    },
    refusals,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await Promise.all([once(server, 'close'), openai.close()]);
    },
  };
}
