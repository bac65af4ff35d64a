import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/** What a test asserts on: the status, the headers, the body parsed when it is JSON, and its text. */
export interface Reply {
  status: number;
  headers: LightMyRequestResponse['headers'];
  /** The parsed body when the content type is JSON (`application/json`, `…+json`); otherwise undefined. */
  body: any;
  text: string;
  /** The bytes, for tests that hash or unpack what was sent. */
  raw: Buffer;
}

export interface RequestOptions {
  headers?: Record<string, string>;
}

/** GET, HEAD and POST through inject(), each answering a Reply: what a test reads as the API call it checks. */
export interface Requests<O extends RequestOptions = RequestOptions> {
  get(path: string, options?: O): Promise<Reply>;
  head(path: string, options?: O): Promise<Reply>;
  post(path: string, body: unknown, options?: O): Promise<Reply>;
  /** Any other request, still answered as a Reply (raw inject() stays for odd bodies and headers). */
  request(options: InjectOptions): Promise<Reply>;
}

/** Reads an inject() response the way a client would. */
export function toReply(response: LightMyRequestResponse): Reply {
  const type = String(response.headers['content-type'] ?? '');
  return {
    status: response.statusCode,
    headers: response.headers,
    body: /[/+]json\b/.test(type) && response.body !== '' ? JSON.parse(response.body) : undefined,
    text: response.body,
    raw: response.rawPayload,
  };
}

/** Request helpers bound to one app; `headersOf` adds what every request carries (credentials, say). */
export function bindRequests<O extends RequestOptions>(
  app: FastifyInstance,
  headersOf: (options: O | undefined) => Record<string, string> = (options) => ({ ...options?.headers }),
): Requests<O> {
  const request = async (options: InjectOptions) => toReply(await app.inject(options));
  return {
    get: (url, options) => request({ method: 'GET', url, headers: headersOf(options) }),
    head: (url, options) => request({ method: 'HEAD', url, headers: headersOf(options) }),
    post: (url, payload, options) =>
      request({
        method: 'POST',
        url,
        headers: headersOf(options),
        payload: payload as string | object,
      }),
    request,
  };
}
