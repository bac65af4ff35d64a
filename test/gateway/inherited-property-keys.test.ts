import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppLimiter } from '../../src/gateway/limits/app-limiter.ts';
import { PRICE_MEMO_ENTRIES, PriceBook } from '../../src/gateway/pricing/price-book.ts';
import { InProcessLimitStore } from '../../src/storage/limit-store.ts';
import { shareGateway } from '../helpers/gateway-harness.ts';

/** Names every plain object answers to through its prototype. */
const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

describe('keys a caller chooses are looked up as own entries only', () => {
  const gw = shareGateway({
    file: {
      routing: { tasks: { summarize: [{ provider: 'provider-b' }] } },
      prices: { 'simulated-chat': { inputPerMTok: 1, outputPerMTok: 2 } },
    },
  });

  const chat = (payload: Record<string, unknown>) =>
    gw.chat({ messages: [{ role: 'user', content: 'hi' }], ...payload });

  for (const task of INHERITED) {
    it(`task ${JSON.stringify(task)} is an unknown task: the default route answers`, async () => {
      const res = await chat({ task });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.provider, 'provider-a');
    });
  }

  it('a model named like an inherited property is not a configured price', async () => {
    // A real upstream's model is the caller's string, priced as given (the simulated one renames it).
    const book = new PriceBook({ 'simulated-chat': { inputPerMTok: 1, outputPerMTok: 2 } });
    await book.load();
    for (const model of INHERITED) {
      const resolved = book.resolve('openai', model);
      assert.notEqual(resolved.source, 'config', model);
      assert.equal(typeof resolved.price.inputPerMTok, 'number', model);
    }
  });

  it('an app named like an inherited property gets the default limits', () => {
    const limiter = new AppLimiter(
      { default: { requestsPerMinute: 7 }, apps: { web: { requestsPerMinute: 100 } } },
      new InProcessLimitStore(),
      () => 0,
    );
    for (const app of INHERITED) assert.deepEqual(limiter.limitsFor(app), { requestsPerMinute: 7 }, app);
    assert.deepEqual(limiter.limitsFor('web'), { requestsPerMinute: 100 });
  });
});

describe('the price memo is bounded', () => {
  it('a flood of invented model names keeps it at PRICE_MEMO_ENTRIES', async () => {
    const book = new PriceBook({ known: { inputPerMTok: 1, outputPerMTok: 1 } });
    await book.load();
    for (let i = 0; i < PRICE_MEMO_ENTRIES * 3; i++) book.resolve('simulated', `invented-${i}`);
    assert.equal(book.memoSize, PRICE_MEMO_ENTRIES);
    assert.equal(book.resolve('simulated', 'known').source, 'config');
  });
});
