import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { APP, type Harness, SECRET } from './gateway-harness.ts';

/**
 * The official Anthropic SDK pointed at a test gateway, as a user configures it: base URL and key
 * only. The SDK speaks HTTP, so the gateway listens on a free port of the loopback interface
 * (closed with the harness). Retries are off, so each test sees the gateway's first answer.
 */
export async function listenForClients(gw: Harness): Promise<string> {
  if (!gw.gateway.server.listening) await gw.gateway.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gw.gateway.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export function anthropicClient(baseURL: string, apiKey = `${APP}:${SECRET}`): Anthropic {
  return new Anthropic({ baseURL, apiKey, maxRetries: 0 });
}

/**
 * POST /v1/messages through inject with the body as written (the same-vendor lane's tests compare
 * bytes), the app's key, `anthropic-version: 2023-06-01` and the given betas; `headers` added last.
 */
export function postMessages(gw: Harness, body: string, betas: string, headers: Record<string, string> = {}) {
  return gw.gateway.inject({
    method: 'POST',
    url: '/v1/messages',
    headers: {
      'content-type': 'application/json',
      'x-api-key': `${APP}:${SECRET}`,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': betas,
      ...headers,
    },
    payload: body,
  });
}
