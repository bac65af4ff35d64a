import type { Static, TObject } from 'typebox';
import type { CloudSettings, ModelMap } from './cloud-settings.ts';
import type { ProviderSlot } from './config-file-schema.ts';
import type { PROVIDER_KIND_ROWS, ProviderKind } from './provider-kinds.ts';
import type { BalanceStrategy, ProviderTimeouts } from './settings-schema.ts';

type Row<K extends ProviderKind> = (typeof PROVIDER_KIND_ROWS)[K];

/**
 * One slot bound to kind K, derived from the kind's row: a kind with a default base URL always
 * has one; a kind whose key is required `always` always has a key; a kind that cannot embed has
 * no embedding model; a kind with its own settings block has it under its name.
 */
export type KindSettings<K extends ProviderKind> = {
  slot: ProviderSlot;
  kind: K;
  baseUrl: Row<K>['baseUrl'] extends string ? string : string | undefined;
  apiKey: Row<K>['apiKey'] extends 'always' ? string : string | undefined;
  chatModel: string;
  embedModel: Row<K>['capabilities']['embed'] extends false ? undefined : string | undefined;
  /** Models this slot is known to serve; used to route a request that names a model but no provider. */
  models: string[];
  /** Output-token cap sent when the caller gives no maxTokens and the upstream requires one. */
  defaultMaxTokens: number;
  timeouts: ProviderTimeouts;
  /** The cloud kinds' settings (CONTRACT 6.4): region, project, Entra ID…; empty on the others. */
  cloud?: CloudSettings;
  /** The name clients use → the upstream's model id; the ledger keeps both. */
  modelMap?: ModelMap;
} & (Row<K> extends { settings: infer S extends TObject } ? { [P in K]: Static<S> } : unknown);

/** One slot's settings, told apart by `kind`: each adapter takes only its own kind's. */
export type ProviderSettings = { [K in ProviderKind]: KindSettings<K> }[ProviderKind];

/** The settings of one kind, e.g. `SettingsOfKind<'gemini'>`. */
export type SettingsOfKind<K extends ProviderKind> = Extract<ProviderSettings, { kind: K }>;

/** One upstream of a slot, resolved: its key is the slot's when it gives none, its weight 1 by default. */
export interface DeploymentSettings {
  name: string;
  /** Its own kind (CONTRACT 6.4), the slot's when it names none. */
  kind: ProviderKind;
  /** Undefined where the kind derives it (bedrock from the region, vertex from the location). */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  cloud: CloudSettings;
  modelMap: ModelMap;
  weight: number;
  /** A label, and a bedrock deployment's AWS region. */
  region: string | undefined;
  /** The models it serves; undefined: every model of its slot. */
  models: readonly string[] | undefined;
}

/**
 * A slot as the configuration binds it: its kind's settings, which each adapter takes, and the
 * deployments it spreads calls over. No deployments: the slot's own base URL and key are its one
 * upstream, as a slot always was (CONTRACT 5.6).
 */
export type SlotSettings = ProviderSettings & {
  strategy: BalanceStrategy;
  deployments: readonly DeploymentSettings[];
};
