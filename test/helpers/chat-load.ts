import { Agent, request } from 'undici';

export interface LoadOptions {
  origin: string;
  app: string;
  secret: string;
  /** The simulated upstream's latency per chat (default 2 ms). */
  latencyMs?: number;
  /** Chat requests in flight at once, on their own connections. */
  chatConnections: number;
  /** Connections that read `GET /v1/usage` in a loop meanwhile (0: none). */
  usageReaders: number;
  /** Stop after this many chat requests have been sent... */
  total: number;
  /** ...or once this says so (checked before each request). */
  stop?: () => boolean;
  /** Called with the number of 200s so far, each time one arrives. */
  onAnswer?: (answers: number) => void;
}

export interface Answer {
  id: string;
  /** performance.now() when the answer arrived. */
  at: number;
}

export interface LoadResult {
  answers: Answer[];
  /** Chat requests that got no 200: refused, reset, or cut off. */
  unanswered: number;
  usageReads: number;
  /** Statuses other than 200 seen by the usage readers. */
  usageFailures: number[];
}

/**
 * Sends simulated chat requests from `chatConnections` connections while other connections read
 * the app's usage, the way a dashboard polls while traffic flows. Keeps every 200's id and when
 * it arrived, so a test can reconcile the ledger against what clients were told.
 */
export async function driveChatLoad(options: LoadOptions): Promise<LoadResult> {
  const headers = {
    'content-type': 'application/json',
    'x-gateway-app': options.app,
    'x-gateway-secret': options.secret,
  };
  const chats = new Agent({ connections: options.chatConnections });
  const readers = new Agent({ connections: Math.max(1, options.usageReaders) });
  const result: LoadResult = { answers: [], unanswered: 0, usageReads: 0, usageFailures: [] };
  let sent = 0;
  let chatting = true;
  const done = () => sent >= options.total || options.stop?.() === true;

  const chat = async () => {
    while (!done()) {
      sent++;
      try {
        const res = await request(`${options.origin}/v1/chat`, {
          method: 'POST',
          dispatcher: chats,
          headers,
          body: JSON.stringify({
            messages: [{ role: 'user', content: `load ${sent}` }],
            metadata: { simulated: { latencyMs: options.latencyMs ?? 2 } },
          }),
        });
        const body = (await res.body.json()) as { id?: string };
        if (res.statusCode === 200 && typeof body.id === 'string') {
          result.answers.push({ id: body.id, at: performance.now() });
          options.onAnswer?.(result.answers.length);
        } else result.unanswered++;
      } catch {
        result.unanswered++;
      }
    }
  };
  const read = async () => {
    while (chatting) {
      try {
        const res = await request(`${options.origin}/v1/usage`, { dispatcher: readers, headers });
        await res.body.dump();
        result.usageReads++;
        if (res.statusCode !== 200) result.usageFailures.push(res.statusCode);
      } catch {
        if (!chatting) break;
        result.usageFailures.push(0);
      }
    }
  };
  const reading = Array.from({ length: options.usageReaders }, read);
  await Promise.all(Array.from({ length: options.chatConnections }, chat));
  chatting = false;
  await Promise.all(reading);
  await Promise.all([chats.close(), readers.close()]);
  return result;
}
