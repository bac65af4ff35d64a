import {
  documentSpan,
  type IndexedValue,
  indexValue,
  parseSpan,
  standInAt,
  type ValueSpan,
} from '../../domain/json-top-level.ts';
import { type RelayFields, readRelayFields } from './read-relay-fields.ts';

/**
 * A GenerateContentRequest read lightly from its bytes (already checked to be JSON), for the
 * same-vendor lane: readRelayFields' reading without parsing the body. Its checks run on a
 * skeleton (each of `contents` stood in for by an empty value of its kind; `generationConfig` and
 * `tools`, small, parsed), so the 400s are the same for the same body; the texts of `contents` and
 * `systemInstruction` are read when first asked. A key given twice counts as its last.
 */
export function readRelayFieldsBytes(bytes: Buffer): Omit<RelayFields, 'texts'> & { texts: () => string[] } {
  const members = indexOf(bytes)?.members;
  if (members === undefined) {
    const document = documentSpan(bytes);
    return {
      ...readRelayFields(document === undefined ? undefined : standInAt(bytes, document)),
      texts: () => [],
    };
  }
  const skeleton: Record<string, unknown> = {};
  for (const [key, span] of members) {
    if (key === 'contents')
      skeleton[key] = span.elements?.map((item) => standInAt(bytes, item)) ?? standInAt(bytes, span);
    else if (key === 'generationConfig' || key === 'tools') skeleton[key] = parseSpan(bytes, span);
  }
  const read = readRelayFields(skeleton);
  let texts: string[] | undefined;
  return {
    ...read,
    texts: () => {
      const prompt = (key: string) => parseMember(bytes, members.get(key));
      texts ??= readRelayFields({
        contents: prompt('contents'),
        systemInstruction: prompt('systemInstruction'),
      }).texts;
      return texts;
    },
  };
}

/** A top-level field of the bytes, parsed; undefined when absent. */
export function topLevelFieldOf(bytes: Buffer, key: string): unknown {
  return parseMember(bytes, indexOf(bytes)?.members?.get(key));
}

/** Each body's index two levels down (the body, `contents`), made in one walk and kept for the request. */
const indexes = new WeakMap<Buffer, IndexedValue | null>();

function indexOf(bytes: Buffer): IndexedValue | undefined {
  let index = indexes.get(bytes);
  if (index === undefined) {
    const document = documentSpan(bytes);
    index = document === undefined ? null : indexValue(bytes, document, 2);
    indexes.set(bytes, index);
  }
  return index ?? undefined;
}

function parseMember(bytes: Buffer, span: ValueSpan | undefined): unknown {
  return span === undefined ? undefined : parseSpan(bytes, span);
}
