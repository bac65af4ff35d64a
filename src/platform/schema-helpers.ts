import { type TSchema, type TUnsafe, Type } from 'typebox';

/**
 * A string limited to a fixed set of values, written as a plain JSON Schema `enum`
 * (TypeBox would write an `anyOf` of constants, whose validation errors are far noisier).
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A schema that accepts any JSON value (for free-form fields). */
export function AnyJson(options: Record<string, unknown> = {}): TUnsafe<unknown> {
  return Type.Unsafe<unknown>({ ...options });
}

export type { TSchema };
