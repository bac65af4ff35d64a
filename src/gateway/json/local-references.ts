import { childPointer } from './schema-error.ts';

/**
 * Resolves a schema's local references (`#`, `#/json/pointer`, `#anchor`) to the subschema they
 * name, and remembers each subschema's JSON Pointer for error messages. Built by one iterative
 * walk; depth is already bounded when this runs.
 */
export class LocalReferences {
  readonly root: unknown;
  readonly #anchors = new Map<string, object>();
  readonly #pointers = new Map<object, string>();

  constructor(root: unknown, rootPointer = '') {
    this.root = root;
    const stack: { node: unknown; path: string }[] = [{ node: root, path: rootPointer }];
    while (stack.length > 0) {
      const { node, path } = stack.pop() as { node: unknown; path: string };
      if (typeof node !== 'object' || node === null || this.#pointers.has(node)) continue;
      this.#pointers.set(node, path);
      const record = node as Record<string, unknown>;
      for (const keyword of ['$anchor', '$dynamicAnchor']) {
        const anchor = record[keyword];
        if (typeof anchor === 'string' && !Array.isArray(node)) this.#anchors.set(anchor, node);
      }
      for (const [key, child] of Object.entries(node))
        stack.push({ node: child, path: childPointer(path, key) });
    }
  }

  /** The subschema a `$ref` names, or undefined when it names nothing in this document. */
  resolve(ref: string): unknown {
    if (!ref.startsWith('#')) return undefined;
    const fragment = safeDecode(ref.slice(1));
    if (fragment === undefined) return undefined;
    if (fragment !== '' && !fragment.startsWith('/')) return this.#anchors.get(fragment);
    let target: unknown = this.root;
    for (const token of fragment.split('/').slice(1)) {
      const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
      if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) return undefined;
      target = (target as Record<string, unknown>)[key];
    }
    return target;
  }

  /** Whether this object is part of the document (a subschema, or data inside one). */
  has(node: object): boolean {
    return this.#pointers.has(node);
  }

  pointerOf(node: object): string {
    return this.#pointers.get(node) ?? '';
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The targets of a schema object's reference keywords that resolve locally. */
export function referencedSchemas(schema: Record<string, unknown>, references: LocalReferences): unknown[] {
  const targets: unknown[] = [];
  for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef']) {
    const ref = schema[keyword];
    if (typeof ref !== 'string') continue;
    const target = references.resolve(ref);
    if (target !== undefined) targets.push(target);
  }
  return targets;
}
