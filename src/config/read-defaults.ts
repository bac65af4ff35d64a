import { IsOptional, type Static, type TObject, type TSchema } from 'typebox';

function isObjectSchema(schema: TSchema): schema is TObject {
  return 'properties' in schema && typeof schema.properties === 'object' && schema.properties !== null;
}

/**
 * The defaults written in a settings schema, as a value of the schema's type. A required setting
 * without a default is a programming error, found when the module loads rather than as an
 * `undefined` deep in a request.
 */
export function readDefaults<T extends TObject>(schema: T, path = ''): Static<T> {
  const defaults: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties) as [string, TSchema][]) {
    if ('default' in property) defaults[key] = property.default;
    else if (isObjectSchema(property)) defaults[key] = readDefaults(property, `${path}${key}.`);
    else if (!IsOptional(property)) throw new Error(`the setting ${path}${key} has no default`);
  }
  return defaults as Static<T>;
}

/**
 * A settings section: each key of the schema from `given` when set there, else its default
 * (nested sections key by key). Keys of `given` the schema does not know are left out, so a
 * wider input can be passed whole.
 */
export function withDefaults<T extends TObject>(schema: T, given: object | undefined): Static<T> {
  const resolved: Record<string, unknown> = {};
  const defaults: Record<string, unknown> = readDefaults(schema);
  for (const [key, property] of Object.entries(schema.properties) as [string, TSchema][]) {
    const value = (given as Record<string, unknown> | undefined)?.[key];
    if (isObjectSchema(property) && !('default' in property)) {
      resolved[key] = withDefaults(property, value as object | undefined);
    } else if (value !== undefined) resolved[key] = value;
    else if (key in defaults) resolved[key] = defaults[key];
  }
  return resolved as Static<T>;
}
