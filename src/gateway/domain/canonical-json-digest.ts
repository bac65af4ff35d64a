/** What the canonical text is written into: a hash (node:crypto's `Hash`), piece by piece. */
export interface DigestSink {
  update(text: string): unknown;
}

/** Pieces are gathered up to this many characters before they go to the sink: few calls, little memory. */
const CHUNK_CHARS = 64 * 1024;

/** A piece of the text already written out (punctuation, a field's name), apart from a value still to write. */
class Piece {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * Writes `value`'s canonical JSON (the text `canonicalJson` gives: keys sorted, undefined and
 * function fields left out, undefined array items as null) into `sink`, without building that
 * text whole and without recursion: a request body of many megabytes, or nested as deep as its
 * size allows, costs one pass and a bounded buffer, and cannot overflow the call stack.
 */
export function writeCanonicalJson(value: unknown, sink: DigestSink): void {
  let buffer = '';
  const emit = (text: string) => {
    buffer += text;
    if (buffer.length >= CHUNK_CHARS) {
      sink.update(buffer);
      buffer = '';
    }
  };
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Piece) {
      emit(item.text);
      continue;
    }
    if (item === null || typeof item !== 'object') {
      emit(JSON.stringify(item) ?? 'null');
      continue;
    }
    // Pushed in reverse: the stack gives them back in order.
    if (Array.isArray(item)) {
      stack.push(new Piece(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        stack.push(item[index] ?? null);
        if (index > 0) stack.push(new Piece(','));
      }
      emit('[');
      continue;
    }
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
      .sort();
    stack.push(new Piece('}'));
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      stack.push(record[key]);
      stack.push(new Piece(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
    }
    emit('{');
  }
  if (buffer !== '') sink.update(buffer);
}
