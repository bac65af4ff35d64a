/** One name the `model` field resolves, and who serves it (a slot, or the gateway for a route). */
export interface AddressableModel {
  id: string;
  ownedBy: string;
}

/**
 * `GET /v1/models` in OpenAI's shape (`Model` in the `openai` package): `{object: 'list', data:
 * [{id, object: 'model', created, owned_by}]}`. `created` is Unix seconds; the gateway knows no
 * release date for a model, so every entry carries the time the listing was built.
 */
export function toOpenAIModelList(models: readonly AddressableModel[], created: number) {
  return {
    object: 'list' as const,
    data: models.map((model) => ({
      id: model.id,
      object: 'model' as const,
      created,
      owned_by: model.ownedBy,
    })),
  };
}
