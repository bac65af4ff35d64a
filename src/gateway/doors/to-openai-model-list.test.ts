import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toOpenAIModelList } from './to-openai-model-list.ts';

describe('OpenAI model list', () => {
  it("is OpenAI's list of model objects", () => {
    assert.deepEqual(
      toOpenAIModelList(
        [
          { id: 'provider-a/gpt-4o-mini', ownedBy: 'provider-a' },
          { id: 'summarize', ownedBy: 'gateway' },
        ],
        1_700_000_000,
      ),
      {
        object: 'list',
        data: [
          { id: 'provider-a/gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'provider-a' },
          { id: 'summarize', object: 'model', created: 1_700_000_000, owned_by: 'gateway' },
        ],
      },
    );
  });
});
