import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MessagePortLike, RpcPeer } from './rpc-peer.ts';

/** Two ends of a channel in one process; messages arrive on a later turn, in order, as over IPC. */
function channel(): [MessagePortLike, MessagePortLike] {
  const listeners: [((message: unknown) => void)[], ((message: unknown) => void)[]] = [[], []];
  const end = (mine: number): MessagePortLike => ({
    send: (message) => {
      const copy = structuredClone(message);
      setImmediate(() => {
        for (const listener of listeners[1 - mine] as ((message: unknown) => void)[]) listener(copy);
      });
    },
    onMessage: (listener) => (listeners[mine] as ((message: unknown) => void)[]).push(listener),
  });
  return [end(0), end(1)];
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("notifyEach sends one turn's items as one message, and the next turn's as another", async () => {
  const [a, b] = channel();
  const sender = new RpcPeer(a);
  const receiver = new RpcPeer(b);
  const received: number[][] = [];
  receiver.handle('runs.open', (items: number[]) => received.push(items));
  sender.notifyEach('runs.open', 1);
  sender.notifyEach('runs.open', 2);
  sender.notifyEach('runs.open', 3);
  await turn();
  await turn();
  sender.notifyEach('runs.open', 4);
  await turn();
  await turn();
  assert.deepEqual(received, [[1, 2, 3], [4]]);
});

test('what is gathered goes before any message sent after it, so the order on the channel holds', async () => {
  const [a, b] = channel();
  const sender = new RpcPeer(a);
  const receiver = new RpcPeer(b);
  const seen: string[] = [];
  receiver.handle('runs.open', (items: string[]) => seen.push(`open ${items.join(',')}`));
  receiver.handle('runs.written', (items: string[]) => seen.push(`written ${items.join(',')}`));
  receiver.handle('ping', () => 'pong');
  sender.notifyEach('runs.open', 'r1');
  sender.notify('runs.written', [['r1']]);
  assert.equal(await sender.call('ping', [], 1000), 'pong');
  assert.deepEqual(seen, ['open r1', 'written r1']);
});

test('after close nothing gathered is sent', async () => {
  const [a, b] = channel();
  const sender = new RpcPeer(a);
  const receiver = new RpcPeer(b);
  const received: unknown[] = [];
  receiver.handle('runs.open', (items: unknown[]) => received.push(items));
  sender.close();
  sender.notifyEach('runs.open', 1);
  await turn();
  await turn();
  assert.deepEqual(received, []);
});
