import { once } from 'node:events';
import { createServer, connect as openSocket, type Server, type Socket } from 'node:net';

/**
 * How the relay fails: `refused` closes the listener and resets every live connection (Redis
 * died, the port answers with a refusal); `blackhole` keeps every connection open, accepts new
 * ones, and lets nothing through either way (a network partition: nobody says the peer is gone,
 * which is what leaves a client waiting). A healed blackhole delivers what was held back, as TCP
 * retransmission would.
 */
export type CutMode = 'refused' | 'blackhole';

export interface RedisRelay {
  port: number;
  /** `redis://127.0.0.1:<relay port>`, with `auth` put before the host when given. */
  url(auth?: string): string;
  cut(mode: CutMode): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
}

/**
 * A TCP relay in front of the machine's Redis, which a test cuts and restores: the real Redis is
 * never stopped or reconfigured. Each client connection gets its own upstream connection.
 */
export async function startRedisRelay(target = { host: '127.0.0.1', port: 6379 }): Promise<RedisRelay> {
  const pairs = new Set<Pair>();
  let mode: CutMode | undefined;

  const join = (pair: Pair) => {
    const upstream = openSocket(target);
    pair.upstream = upstream;
    pair.client.pipe(upstream).pipe(pair.client);
    const drop = () => {
      pair.client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    upstream.on('error', drop).on('close', drop);
  };

  const server: Server = createServer((client) => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client
      .on('error', () => {})
      .on('close', () => {
        pair.upstream?.destroy();
        pairs.delete(pair);
      });
    // Accepted during a blackhole: held silent until the relay heals.
    if (mode === 'blackhole') client.pause();
    else join(pair);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;

  const relay: RedisRelay = {
    port,
    url: (auth) => `redis://${auth === undefined ? '' : `${auth}@`}127.0.0.1:${port}`,
    async cut(cutMode) {
      mode = cutMode;
      if (cutMode === 'refused') {
        const closed = new Promise((resolve) => server.close(resolve));
        for (const pair of pairs) {
          pair.client.resetAndDestroy();
          pair.upstream?.destroy();
        }
        pairs.clear();
        await closed;
        return;
      }
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.upstream?.unpipe();
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    async restore() {
      if (mode === undefined) return;
      const was = mode;
      mode = undefined;
      if (was === 'refused') {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
        return;
      }
      for (const pair of pairs) {
        if (pair.upstream === undefined) {
          join(pair);
          pair.client.resume();
          continue;
        }
        pair.client.pipe(pair.upstream).pipe(pair.client);
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
  return relay;
}
