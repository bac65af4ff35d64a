import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config/load-config.ts';
import { PROVIDER_KIND_ROWS, type ProviderKind, type ProviderKindRow } from '../../config/provider-kinds.ts';
import { PriceBook } from './price-book.ts';

const rows = Object.entries(PROVIDER_KIND_ROWS) as [ProviderKind, ProviderKindRow][];

describe('PriceBook and the provider kind rows', () => {
  it("prices every kind's default models: a kind cannot quietly cost $0", async () => {
    const book = new PriceBook(loadConfig({}, []).prices);
    await book.load();
    for (const [kind, row] of rows) {
      for (const model of [row.chatModel, row.embedModel].filter((m) => m !== undefined)) {
        const { source, price } = book.resolve(kind, model);
        assert.notEqual(source, 'none', `${kind} ${model}`);
        assert.ok(price.inputPerMTok > 0, `${kind} ${model} has an input price`);
      }
    }
  });

  it('refuses at load a kind whose vendor the price table does not know', async () => {
    const misspelt = {
      ...PROVIDER_KIND_ROWS,
      gemini: { ...PROVIDER_KIND_ROWS.gemini, pricing: { vendor: 'gogle' } },
    };
    await assert.rejects(
      new PriceBook({}).load(misspelt),
      /provider kind 'gemini' is priced by vendor 'gogle'/,
    );
  });

  it('keeps an unknown model of a real vendor at $0, labelled none, and a configured price first', async () => {
    const book = new PriceBook({
      'my-local-llama': { inputPerMTok: 0, outputPerMTok: 0 },
      'gpt-4o-mini': { inputPerMTok: 9, outputPerMTok: 9 },
    });
    await book.load();
    assert.equal(book.resolve('openai', 'no-such-model-anywhere').source, 'none');
    assert.equal(book.resolve('openai', 'my-local-llama').source, 'config');
    assert.deepEqual(book.resolve('openai', 'gpt-4o-mini'), {
      price: { inputPerMTok: 9, outputPerMTok: 9 },
      source: 'config',
    });
    assert.equal(
      book.resolve('simulated', 'simulated-chat').source,
      'none',
      'without the loader, no sample prices',
    );
  });
});
