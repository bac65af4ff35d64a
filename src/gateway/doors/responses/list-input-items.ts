import { refuseField } from '../openai-refusal.ts';

/** The query of `GET /v1/responses/{id}/input_items`, as OpenAI names it. */
export interface InputItemsQuery {
  limit?: unknown;
  order?: unknown;
  after?: unknown;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * A stored response's input items as OpenAI's list (`object: "list"`, `data`, `first_id`,
 * `last_id`, `has_more`): newest first unless `order=asc`, at most `limit` (1 to 100, 20 by
 * default), after the item `after`. Items the client sent without an id get one from the
 * response's id and their place, so that `after` can name them.
 */
export function listInputItems(responseId: string, items: readonly unknown[], query: InputItemsQuery) {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw refuseField('/limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  }
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') {
    throw refuseField('/order', "must be 'asc' or 'desc'");
  }
  const digits = responseId.replace(/^resp_/, '');
  const named = items.map((item, index) => {
    const object = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const id = typeof object['id'] === 'string' ? object['id'] : `item_${digits}_${index}`;
    return { ...object, id, type: object['type'] ?? 'message' };
  });
  if (query.order !== 'asc') named.reverse();
  let start = 0;
  if (typeof query.after === 'string') {
    const at = named.findIndex((item) => item.id === query.after);
    start = at === -1 ? named.length : at + 1;
  }
  const data = named.slice(start, start + limit);
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + limit < named.length,
  };
}
