import type { AddressableModel } from './to-openai-model-list.ts';

/**
 * `GET /v1/models` in Anthropic's shape (API reference, "List Models"), for a request that
 * carries `anthropic-version` (CONTRACT 5.2): `{data: [{type: 'model', id, display_name,
 * created_at}], has_more, first_id, last_id}`. Everything fits one page (`has_more` false), so a
 * client's `limit`, `after_id` and `before_id` change nothing. The gateway knows no display name
 * nor release date of a model: the name is the id, and the date the time the listing was built
 * (RFC 3339).
 */
export function toAnthropicModelList(models: readonly AddressableModel[], createdAt: string) {
  const data = models.map((model) => ({
    type: 'model' as const,
    id: model.id,
    display_name: model.id,
    created_at: createdAt,
  }));
  return {
    data,
    has_more: false,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}
