import type { Ajv, ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * `uniqueItems` in time linear in the array's size. Ajv compares objects and arrays pairwise
 * (6,000 small objects, a 65 kB model answer, took a second); here each item is written once in
 * a canonical form (object keys sorted) and looked up in a Set. Equal items in JSON Schema's sense
 * (same keys in any order, same values) have the same canonical form.
 */
export function replaceUniqueItems(ajv: Ajv | Ajv2020): void {
  ajv.removeKeyword('uniqueItems');
  const validate = (unique: boolean, data: unknown[]): boolean => {
    const duplicate = unique ? findDuplicate(data) : undefined;
    if (duplicate === undefined) return true;
    validate.errors = [
      {
        keyword: 'uniqueItems',
        message: `must NOT have duplicate items (items ## ${duplicate[0]} and ${duplicate[1]} are identical)`,
        params: { i: duplicate[1], j: duplicate[0] },
      },
    ];
    return false;
  };
  validate.errors = [] as Partial<ErrorObject>[];
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate });
}

/** The indexes of the first two equal items, or undefined. */
export function findDuplicate(items: readonly unknown[]): [number, number] | undefined {
  const seen = new Map<string, number>();
  for (let index = 0; index < items.length; index++) {
    const key = canonicalJson(items[index]);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, index];
    seen.set(key, index);
  }
  return undefined;
}

/** Text to emit as is, between the values the serializer still has to write. */
class Literal {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON with object keys sorted, written without recursion: a model's answer may nest deeply. */
export function canonicalJson(root: unknown): string {
  const parts: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Literal) {
      parts.push(value.text);
    } else if (Array.isArray(value)) {
      stack.push(new Literal(']'));
      for (let index = value.length - 1; index >= 0; index--) {
        stack.push(value[index]);
        if (index > 0) stack.push(new Literal(','));
      }
      parts.push('[');
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value).sort();
      stack.push(new Literal('}'));
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        stack.push((value as Record<string, unknown>)[key]);
        stack.push(new Literal(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
      parts.push('{');
    } else {
      parts.push(JSON.stringify(value) ?? 'null');
    }
  }
  return parts.join('');
}
