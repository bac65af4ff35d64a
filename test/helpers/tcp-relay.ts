import { once } from 'node:events';
import { createServer, connect as openSocket, type Server, type Socket } from 'node:net';

/**
 * How the relay fails: `refused` closes the listener and resets every live connection (the
 * server's host is gone: the port refuses); `closed` closes the listener and ends every live
 * connection in order, as a server that shuts down does; `blackhole` keeps every connection open and lets
 * nothing through either way, and holds new ones silent (a network partition: nobody says the
 * peer is gone); `answer` keeps the connections and answers the clients in the server's place,
 * through the relay's `answerer` (a server that answers wrongly, such as a Redis replica).
 */
export type RelayCut = 'refused' | 'closed' | 'blackhole' | 'answer';

export interface TcpRelayOptions {
  /**
   * For the `answer` cut: makes, for one connection, what reads the client's bytes and gives the
   * replies to write back in the server's place.
   */
  answerer?: () => (chunk: Buffer) => string[];
}

export interface TcpRelay {
  host: string;
  port: number;
  cut(mode: RelayCut): Promise<void>;
  restore(): Promise<void>;
  /** Resolves when a client sends these bytes (a statement's text, say): a cut can then land inside it. */
  clientSends(text: string): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
  /** While the relay answers in the server's place (`answer`): the listener that does. */
  answering?: ((chunk: Buffer) => void) | undefined;
}

/**
 * A TCP relay in front of a server of this machine (PostgreSQL, Redis), which a test cuts and
 * restores: the real server is never stopped or reconfigured. Each client connection gets its
 * own upstream connection. A healed cut delivers what was held back, as TCP retransmission would.
 */
export async function startTcpRelay(
  target: { host: string; port: number },
  options: TcpRelayOptions = {},
): Promise<TcpRelay> {
  const pairs = new Set<Pair>();
  let mode: RelayCut | undefined;
  const watchers = new Set<{ text: string; resolve: () => void }>();
  const watch = (chunk: Buffer) => {
    for (const watcher of watchers) {
      if (!chunk.includes(watcher.text)) continue;
      watchers.delete(watcher);
      watcher.resolve();
    }
  };

  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  const join = (pair: Pair) => {
    const upstream = openSocket(target);
    pair.upstream = upstream;
    pair.client.pipe(upstream).pipe(pair.client);
    pair.client.on('data', watch);
    upstream.on('error', () => drop(pair)).on('close', () => drop(pair));
  };

  const answerInPlace = (pair: Pair) => {
    if (options.answerer === undefined) throw new Error('an answer cut needs an answerer');
    const answer = options.answerer();
    pair.answering = (chunk) => {
      for (const reply of answer(chunk)) pair.client.write(reply);
    };
    pair.client.on('data', pair.answering);
    // An unpiped socket stays paused, and a new 'data' listener does not restart it.
    pair.client.resume();
  };

  const server: Server = createServer((client) => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => {}).on('close', () => drop(pair));
    // Accepted during a cut that keeps the port: held silent, or answered in the server's place.
    if (mode === 'blackhole') client.pause();
    else if (mode === 'answer') answerInPlace(pair);
    else join(pair);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;

  return {
    host: '127.0.0.1',
    port,
    async cut(cutMode) {
      mode = cutMode;
      if (cutMode === 'refused' || cutMode === 'closed') {
        const closed = new Promise((resolve) => server.close(resolve));
        for (const pair of pairs) {
          if (cutMode === 'refused') pair.client.resetAndDestroy();
          else pair.client.destroy();
          pair.upstream?.destroy();
        }
        pairs.clear();
        await closed;
        return;
      }
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.upstream?.unpipe();
        if (cutMode === 'answer') {
          answerInPlace(pair);
          continue;
        }
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    clientSends: (text) => new Promise((resolve) => watchers.add({ text, resolve })),
    async restore() {
      const was = mode;
      mode = undefined;
      if (was === 'refused' || was === 'closed') {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
        return;
      }
      if (was === 'blackhole' || was === 'answer') {
        for (const pair of pairs) {
          if (pair.answering !== undefined) {
            pair.client.off('data', pair.answering);
            pair.answering = undefined;
          }
          if (pair.upstream === undefined) join(pair);
          else pair.client.pipe(pair.upstream).pipe(pair.client);
          pair.client.resume();
          pair.upstream?.resume();
        }
      }
    },
    async close() {
      for (const pair of [...pairs]) drop(pair);
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
