import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  controlKillableWorkers,
  DYING_WORKER_URL,
  KILLABLE_WORKER_URL,
} from '../../../test/helpers/killable-tokenizer-worker.ts';
import { randomText } from '../../../test/helpers/random-text.ts';
import { DependencyUnavailableError } from '../../platform/dependency-unavailable.ts';
import { EXACT_COUNT_CHARS, encodingTokenizer } from '../domain/encoding-tokenizer.ts';
import { o200kEncoding } from './o200k-encoding.ts';
import { TokenizerThread } from './tokenizer-thread.ts';

const MIB = 1024 * 1024;

/** The same algorithm in this process: what the thread must answer. */
const inProcess = encodingTokenizer(o200kEncoding());

const texts: [string, string | string[]][] = [
  ['ASCII prose', 'The gateway counts the tokens of every request, and a careful reader checks them.'],
  ['CJK', '日本語のテキストを少し数えます。中文的文本也一样。한국어 텍스트도 있습니다.'],
  ['emoji, joined and flagged', '🙂🎉👍 👨‍👩‍👧‍👦 family 🇫🇷🇩🇪 flags'.repeat(50)],
  ['a long run of one letter', 'a'.repeat(100_000)],
  ['random CJK', randomText(20_000, 1, 0x4e00, 0x5000)],
  [`over EXACT_COUNT_CHARS (${EXACT_COUNT_CHARS}): sampled`, randomText(MIB, 2)],
  ['several texts', ['system', 'Be brief.', 'user', 'Hello there', '']],
  ['nothing', ''],
];

describe('the tokenizer thread', () => {
  const thread = new TokenizerThread();
  after(() => thread.close());

  for (const [name, text] of texts) {
    it(`counts ${name} as the algorithm does in process`, async () => {
      assert.equal(await thread.count(text), await inProcess.count(text));
    });
  }

  it('tokenizes an answer as the algorithm does in process: cut, chunked, whole', async () => {
    const answer = 'ᚠᛇᚻ᛫ᛒᛦᚦ and 👨‍👩‍👧‍👦 with 日本語';
    for (const limits of [
      { maxTokens: undefined, chunkTokens: undefined },
      { maxTokens: undefined, chunkTokens: 4 },
      { maxTokens: 4, chunkTokens: 1 },
      { maxTokens: 11, chunkTokens: 3 },
    ]) {
      assert.deepEqual(
        await thread.tokenizeAnswer(answer, limits),
        await inProcess.tokenizeAnswer(answer, limits),
      );
    }
  });

  it('answers concurrent calls each with its own count', async () => {
    const many = Array.from({ length: 20 }, (_, i) => randomText(1000 + i * 500, 10 + i));
    const counts = await Promise.all(many.map((text) => thread.count(text)));
    assert.deepEqual(counts, await Promise.all(many.map((text) => inProcess.count(text))));
    assert.equal(thread.pending, 0);
  });

  it('answers a short count while a 4 MiB one runs, long before it', async () => {
    const big = thread.count(randomText(4 * MIB, 3)).then(() => performance.now());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const start = performance.now();
    const shortDone = await thread.count('a short prompt').then(() => performance.now());
    const bigDone = await big;
    assert.ok(shortDone < bigDone, 'the short count answered first');
    assert.ok(shortDone - start < 1000, `the short count took ${(shortDone - start).toFixed(0)} ms`);
  });
});

describe('the tokenizer thread dying', () => {
  it('sends the calls of a thread that died to a new one, once', async (t) => {
    const thread = new TokenizerThread({ workerUrl: KILLABLE_WORKER_URL });
    const worker = controlKillableWorkers();
    t.after(() => {
      worker.close();
      return thread.close();
    });
    const text = randomText(MIB, 4);
    const received = worker.nextReceipt();
    const counting = thread.count(text);
    await received;
    worker.kill();
    assert.equal(await counting, await inProcess.count(text));
    assert.equal(worker.received.length, 2, 'received by the first thread and by the second');
    assert.equal(thread.pending, 0);
  });

  it('rejects a call whose second thread dies too (503 at the edge); the next call starts a new thread', async (t) => {
    const dying = new TokenizerThread({ workerUrl: DYING_WORKER_URL });
    t.after(() => dying.close());
    const calls = [
      dying.count(randomText(MIB, 5)),
      dying.tokenizeAnswer('an answer', { maxTokens: undefined, chunkTokens: 4 }),
    ];
    for (const call of calls) await assert.rejects(call, DependencyUnavailableError);
    assert.equal(dying.pending, 0, 'no call left behind');

    const thread = new TokenizerThread({ workerUrl: KILLABLE_WORKER_URL });
    const worker = controlKillableWorkers();
    t.after(() => {
      worker.close();
      return thread.close();
    });
    const received = worker.nextReceipt();
    const counting = thread.count(randomText(MIB, 6));
    await received;
    worker.kill();
    await worker.nextReceipt();
    worker.kill();
    await assert.rejects(counting, DependencyUnavailableError);
    assert.equal(thread.pending, 0, 'no call left behind');
    assert.equal(await thread.count('Hello, world!'), 4, 'a new thread for the next call');
  });

  it('rejects the calls of a thread that cannot start: its heap cannot hold the tables', async (t) => {
    const thread = new TokenizerThread({ resourceLimits: { maxOldGenerationSizeMb: 8 } });
    t.after(() => thread.close());
    await assert.rejects(thread.count('Hello, world!'), DependencyUnavailableError);
    assert.equal(thread.pending, 0);
  });

  it('rejects the calls it holds when closed', async () => {
    const thread = new TokenizerThread();
    const counting = assert.rejects(thread.count(randomText(MIB, 6)), DependencyUnavailableError);
    await thread.close();
    await counting;
    assert.equal(thread.pending, 0);
  });
});

describe('what the thread holds', () => {
  it('sends it no more text at once than the bound, and answers every call in order', async (t) => {
    const thread = new TokenizerThread({ workerUrl: KILLABLE_WORKER_URL, maxInFlightChars: 300_000 });
    const worker = controlKillableWorkers();
    t.after(() => {
      worker.close();
      return thread.close();
    });
    const many = Array.from({ length: 8 }, (_, i) => randomText(100_000, 20 + i));
    const counts = await Promise.all(many.map((text) => thread.count(text)));
    assert.deepEqual(counts, await Promise.all(many.map((text) => inProcess.count(text))));
    assert.equal(await worker.maxHeldChars(), 300_000);
    // A call larger than the bound still goes, alone.
    const large = randomText(400_000, 30);
    assert.equal(await thread.count(large), await inProcess.count(large));
  });

  it('lets the process exit while it is idle, without being closed', async (t) => {
    // A file rather than --eval: a worker inherits the process's options, and refuses --input-type.
    const dir = mkdtempSync(join(tmpdir(), 'tokenizer-exit-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, 'count-once.mjs');
    writeFileSync(
      script,
      `import { TokenizerThread } from ${JSON.stringify(new URL('./tokenizer-thread.ts', import.meta.url).href)};
      const thread = new TokenizerThread();
      console.log(await thread.count('Hello, world!'));`,
    );
    const child = spawn(process.execPath, [script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    const timer = setTimeout(() => child.kill(), 15_000);
    const [code] = await once(child, 'exit');
    clearTimeout(timer);
    assert.equal(code, 0, 'exited by itself');
    assert.equal(output.trim(), '4');
  });
});
