import type { ConfigFile } from './config-file-schema.ts';

type Leaf = string | number | boolean | readonly unknown[];
/** A map keyed by names (`mcp.servers`) is one setting: its keys are the file's to choose. */
type IsLeaf<V> = V extends Leaf ? true : string extends keyof V ? true : false;

/** A dotted path to one setting of the YAML file, e.g. `connections.headersTimeoutMs`. */
export type SettingPath<T = ConfigFile> = {
  [K in keyof T & string]-?: IsLeaf<NonNullable<T[K]>> extends true
    ? K
    : `${K}.${SettingPath<NonNullable<T[K]>>}`;
}[keyof T & string];

/** The file's type at a path, so a variable's parser must produce what the file would hold. */
export type SettingAt<P extends string, T = ConfigFile> = P extends `${infer K}.${infer Rest}`
  ? K extends keyof T
    ? SettingAt<Rest, NonNullable<T[K]>>
    : never
  : P extends keyof T
    ? NonNullable<T[P]>
    : never;
