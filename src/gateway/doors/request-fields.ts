import { ApiError } from '../../platform/errors.ts';

/**
 * Reading an Anthropic request body, which arrives as `unknown`: small checks that either return
 * the typed value or throw a 400 naming the field. The message names the field the way
 * Anthropic's own errors do (`messages.0.content.1.type: …`); `details` keeps the JSON Pointer of
 * the native API for logs and tests.
 */

/** A field's position in the body: property names and array indexes, outermost first. */
export type FieldPath = readonly (string | number)[];

export function dotted(path: FieldPath): string {
  return path.length === 0 ? 'body' : path.join('.');
}

function pointer(path: FieldPath): string {
  return path.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The door's 400: `invalid_request` in the catalogue, `invalid_request_error` on the wire. */
export function invalidField(path: FieldPath, message: string): ApiError {
  return new ApiError('invalid_request', `${dotted(path)}: ${message}`, {
    details: [{ path: pointer(path), message }],
  });
}

/** A required property that is absent (or null): the pointer is its parent's, as the native API says it. */
export function missingField(path: FieldPath, field: string): ApiError {
  return new ApiError('invalid_request', `${[...path, field].join('.')}: field required`, {
    details: [{ path: pointer(path), message: `must have required property '${field}'` }],
  });
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readObject(value: unknown, path: FieldPath): JsonObject {
  if (!isObject(value)) throw invalidField(path, 'must be an object');
  return value;
}

export function readArray(value: unknown, path: FieldPath): readonly unknown[] {
  if (!Array.isArray(value)) throw invalidField(path, 'must be an array');
  return value;
}

export function readString(value: unknown, path: FieldPath): string {
  if (typeof value !== 'string') throw invalidField(path, 'must be a string');
  return value;
}

export function readNonEmptyString(value: unknown, path: FieldPath): string {
  const text = readString(value, path);
  if (text === '') throw invalidField(path, 'must not be empty');
  return text;
}

export function readInteger(value: unknown, path: FieldPath, minimum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw invalidField(path, 'must be an integer');
  if (value < minimum) throw invalidField(path, `must be at least ${minimum}`);
  return value;
}

export function readNumberInRange(value: unknown, path: FieldPath, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidField(path, 'must be a number');
  if (value < minimum || value > maximum)
    throw invalidField(path, `must be between ${minimum} and ${maximum}`);
  return value;
}

export function readBoolean(value: unknown, path: FieldPath): boolean {
  if (typeof value !== 'boolean') throw invalidField(path, 'must be a boolean');
  return value;
}

/** A field that may be absent; `null` counts as absent, as Anthropic's optional fields allow. */
export function optional<T>(
  object: JsonObject,
  key: string,
  path: FieldPath,
  read: (value: unknown, path: FieldPath) => T,
): T | undefined {
  if (!Object.hasOwn(object, key)) return undefined;
  const value = object[key];
  return value === null || value === undefined ? undefined : read(value, [...path, key]);
}
