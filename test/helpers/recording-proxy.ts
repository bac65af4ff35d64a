import { once } from 'node:events';
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './mock-anthropic-server.ts';

export interface RecordingProxy {
  /** Where the client is pointed instead of the target (an origin). */
  origin: string;
  /** What the client sent, in order, as the mocks record it (raw bytes included). */
  requests: RecordedRequest[];
  /** The answer's status and headers for each request, at the request's index (once it came). */
  answers: { status: number; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a local server (the gateway) that records each request as the client
 * sent it and passes it, and the answer, on unchanged: what a client sent to the gateway, to
 * compare with what reached the upstream behind it.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const answers: RecordingProxy['answers'] = [];
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = undefined;
    }
    const index =
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw }) - 1;
    const upstream = forward(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        answers[index] = { status: answer.statusCode ?? 502, headers: answer.headers };
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    upstream.end(raw);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    answers,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
