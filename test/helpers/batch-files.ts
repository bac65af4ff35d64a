import type { Harness } from './gateway-harness.ts';
import type { Reply } from './inject-reply.ts';

const BOUNDARY = '----batch-test-boundary-7MA4YWxkTrZu0gW';

/** A multipart/form-data body of the given parts (a part with a filename is a file), as a client writes it. */
export function multipartBody(parts: { name: string; value: string | Buffer; filename?: string }[]): {
  payload: Buffer;
  headers: Record<string, string>;
} {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : 'Content-Type: application/jsonl\r\n';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

/** One JSON Lines request of an OpenAI batch file. */
export function chatLine(
  customId: string,
  content = `say ${customId}`,
  url = '/v1/chat/completions',
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url,
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 16, ...extra },
  });
}

/** A chat line the simulated provider answers after `latencyMs` (its `metadata.simulated` directive). */
export function slowChatLine(customId: string, latencyMs: number): string {
  return chatLine(customId, `say ${customId}`, '/v1/chat/completions', {
    metadata: { simulated: { latencyMs } },
  });
}

/** POST /v1/files with `purpose: batch` and the given file text. */
export function uploadFile(
  gateway: Pick<Harness, 'request'>,
  text: string | Buffer,
  headers: Record<string, string>,
): Promise<Reply> {
  const body = multipartBody([
    { name: 'purpose', value: 'batch' },
    { name: 'file', value: text, filename: 'requests.jsonl' },
  ]);
  return gateway.request({
    method: 'POST',
    url: '/v1/files',
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
}

/** Polls a batch (OpenAI's or Anthropic's path) until `done` holds of it, for at most `timeoutMs`. */
export async function waitForBatch(
  gateway: Pick<Harness, 'get'>,
  path: string,
  headers: Record<string, string>,
  done: (batch: Record<string, any>) => boolean,
  timeoutMs = 20_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await gateway.get(path, { headers });
    if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.text}`);
    if (done(reply.body)) return reply.body;
    if (Date.now() > deadline) throw new Error(`batch not done in ${timeoutMs} ms: ${reply.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
