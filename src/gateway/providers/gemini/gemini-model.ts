/**
 * Gemini names models `models/{id}` in resource paths and request bodies, while operators usually
 * write the bare id. Both spellings are accepted; the bare id is what the gateway reports.
 */
export function geminiModelId(model: string): string {
  return model.trim().replace(/^models\//, '');
}

/** The `models/{id}` resource name used inside request bodies (batch embedding requests need it). */
export function geminiModelResource(model: string): string {
  return `models/${geminiModelId(model)}`;
}

/**
 * The path of a model method, e.g. `/v1beta/models/gemini-2.5-flash:generateContent`. The id is
 * URL-encoded so that a model name from configuration can never change the path or add a query.
 */
export function geminiMethodPath(model: string, method: string): string {
  return `/v1beta/models/${encodeURIComponent(geminiModelId(model))}:${method}`;
}
