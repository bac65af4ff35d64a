import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the server answered with. */
  answered: number;
}

export interface WebhookServer {
  url: string;
  received: ReceivedWebhook[];
  /** Status to answer with, per request number (0-based); `hang` never answers. */
  respond: (index: number) => number | 'hang';
  close(): Promise<void>;
}

/** A mailing-list upstream on 127.0.0.1 and a free port, recording what it is sent. */
export async function startWebhookServer(
  respond: WebhookServer['respond'] = () => 200,
): Promise<WebhookServer> {
  const received: ReceivedWebhook[] = [];
  const hanging: ServerResponse[] = [];
  const state = { respond };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = state.respond(received.length);
      const body = Buffer.concat(chunks).toString('utf8');
      if (answer === 'hang') {
        received.push({ headers: request.headers, body, answered: 0 });
        hanging.push(response);
        return;
      }
      received.push({ headers: request.headers, body, answered: answer });
      response
        .writeHead(answer, { 'content-type': 'text/plain' })
        .end(answer === 200 ? 'ok' : 'upstream says no');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/newsletter`,
    received,
    get respond() {
      return state.respond;
    },
    set respond(value) {
      state.respond = value;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
