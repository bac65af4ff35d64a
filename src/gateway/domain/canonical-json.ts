/**
 * A value as JSON text that depends only on its content: object keys sorted, fields whose value is
 * `undefined` left out (as JSON.stringify does), arrays in their order. Two requests that differ
 * only in the order of their fields give the same text, so the response cache keys on what a
 * request asks rather than how it was written.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field === undefined || typeof field === 'function') continue;
    fields.push(`${JSON.stringify(key)}:${canonicalJson(field)}`);
  }
  return `{${fields.join(',')}}`;
}
