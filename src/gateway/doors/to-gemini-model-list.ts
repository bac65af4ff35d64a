import type { ListedModel } from '../domain/model-catalog.ts';

/** Google's Model resource for one name the door's `{model}` resolves. */
function toGeminiModel(model: ListedModel): Record<string, unknown> {
  const methods: string[] = [];
  if (model.servedBy.chat !== undefined)
    methods.push('generateContent', 'streamGenerateContent', 'countTokens');
  if (model.servedBy.embed !== undefined) methods.push('embedContent', 'batchEmbedContents');
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: model.model ?? model.id,
    displayName: model.id,
    description: model.kind === 'route' ? 'a route of this gateway' : `served by slot ${model.slot}`,
    supportedGenerationMethods: methods,
  };
}

/**
 * `GET /v1beta/models` in Google's shape (`ListModelsResponse`): every name the `{model}` of a
 * path resolves on this gateway, one page. The gateway knows no token limits of its own, so the
 * Model resources carry none.
 */
export function toGeminiModelList(models: readonly ListedModel[]): { models: Record<string, unknown>[] } {
  return { models: models.map(toGeminiModel) };
}

/** `GET /v1beta/models/{model}`: the one resource, or undefined when the name resolves nothing. */
export function findGeminiModel(
  models: readonly ListedModel[],
  id: string,
): Record<string, unknown> | undefined {
  const name = id.startsWith('models/') ? id.slice('models/'.length) : id;
  const found = models.find((model) => model.id === name);
  return found === undefined ? undefined : toGeminiModel(found);
}
