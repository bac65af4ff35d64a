import { once } from 'node:events';
import { createServer, connect as openSocket, type Server, type Socket } from 'node:net';
import { RespCommandReader } from './resp-commands.ts';

/**
 * How the relay fails: `refused` closes the listener and resets every live connection (Redis
 * died, the port answers with a refusal); `blackhole` keeps every connection open, accepts new
 * ones, and lets nothing through either way (a network partition: nobody says the peer is gone,
 * which is what leaves a client waiting). A healed blackhole delivers what was held back, as TCP
 * retransmission would. `readonly` keeps the connections and answers every command itself, as a
 * replica left behind by a failover would: PING with PONG, anything else with a READONLY error
 * reply (the gateway's commands all write).
 */
export type CutMode = 'refused' | 'blackhole' | 'readonly';

const READONLY_REPLY = "-READONLY You can't write against a read only replica.\r\n";

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
  /** While the relay answers for Redis (`readonly`): the listener that does. */
  answering?: ((chunk: Buffer) => void) | undefined;
}

/** Answers the client's commands in place of Redis, as a read-only replica would. */
function answerAsReplica(pair: Pair): void {
  const reader = new RespCommandReader();
  pair.answering = (chunk) => {
    for (const name of reader.push(chunk)) pair.client.write(name === 'PING' ? '+PONG\r\n' : READONLY_REPLY);
  };
  pair.client.on('data', pair.answering);
  // An unpiped socket stays paused, and a new 'data' listener does not restart it.
  pair.client.resume();
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
    else if (mode === 'readonly') answerAsReplica(pair);
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
        if (cutMode === 'readonly') {
          answerAsReplica(pair);
          continue;
        }
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
        if (pair.answering !== undefined) {
          pair.client.off('data', pair.answering);
          pair.answering = undefined;
          if (pair.upstream === undefined) join(pair);
          else pair.client.pipe(pair.upstream);
          continue;
        }
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
