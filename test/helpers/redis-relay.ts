import { RespCommandReader } from './resp-commands.ts';
import { startTcpRelay } from './tcp-relay.ts';

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

/** For one connection: answers its commands in place of Redis, as a read-only replica would. */
function replicaAnswers(): (chunk: Buffer) => string[] {
  const reader = new RespCommandReader();
  return (chunk) => reader.push(chunk).map((name) => (name === 'PING' ? '+PONG\r\n' : READONLY_REPLY));
}

/**
 * The TCP relay (tcp-relay.ts) in front of the machine's Redis, which a test cuts and restores:
 * the real Redis is never stopped or reconfigured.
 */
export async function startRedisRelay(target = { host: '127.0.0.1', port: 6379 }): Promise<RedisRelay> {
  const relay = await startTcpRelay(target, { answerer: replicaAnswers });
  return {
    port: relay.port,
    url: (auth) => `redis://${auth === undefined ? '' : `${auth}@`}127.0.0.1:${relay.port}`,
    cut: (mode) => relay.cut(mode === 'readonly' ? 'answer' : mode),
    restore: () => relay.restore(),
    close: () => relay.close(),
  };
}
