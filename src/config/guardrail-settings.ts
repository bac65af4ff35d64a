import { type Static, Type } from 'typebox';
import { StringEnum } from '../platform/schema-helpers.ts';

/**
 * The guardrails' settings (CONTRACT 6.6 and 6.9): named guards, and the apps, teams and routes
 * they are attached to. Described once here; the loader's checks are read-guardrail-settings.ts,
 * the stage that runs them src/gateway/guardrails/.
 */
const strict = { additionalProperties: false } as const;

export const GUARD_TYPES = ['secrets', 'pii', 'regex', 'words', 'webhook'] as const;
export const GUARD_PHASES = ['input', 'output', 'mcp'] as const;
export const GUARD_ACTIONS = ['block', 'mask', 'log'] as const;
export const WEBHOOK_FAILURE_MODES = ['open', 'closed'] as const;
export type GuardPhase = (typeof GUARD_PHASES)[number];
export type GuardAction = (typeof GUARD_ACTIONS)[number];

/** The mask names of the built-in detectors (CONTRACT 6.9), by guard type. */
export const SECRET_DETECTOR_NAMES = [
  'AWS_ACCESS_KEY',
  'GITHUB_TOKEN',
  'OPENAI_KEY',
  'ANTHROPIC_KEY',
  'GOOGLE_API_KEY',
  'SLACK_TOKEN',
  'JWT',
  'PRIVATE_KEY',
] as const;
export const PII_DETECTOR_NAMES = ['EMAIL', 'PHONE', 'CARD', 'IBAN', 'US_SSN'] as const;

/** A guard's name is a metrics label and a ledger value: short, and nothing a client wrote. */
export const GUARD_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';

const Phases = Type.Union([StringEnum(GUARD_PHASES), Type.Array(StringEnum(GUARD_PHASES), { minItems: 1 })]);

export const GuardFileSchema = Type.Object(
  {
    type: StringEnum(GUARD_TYPES),
    phase: Phases,
    action: Type.Optional(StringEnum(GUARD_ACTIONS)),
    /** secrets and pii: which of the type's detectors run (all when absent). */
    detectors: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    /** regex: an RE2 pattern, masked as `[REDACTED:<guard name>]`. */
    pattern: Type.Optional(Type.String({ minLength: 1 })),
    caseInsensitive: Type.Optional(Type.Boolean()),
    /** words: whole words or phrases, case-insensitive. */
    words: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 10_000 }),
    ),
    /** webhook: where the texts are POSTed, its headers, how long it may take and what its failure does. */
    url: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String())),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 30_000 })),
    failureMode: Type.Optional(StringEnum(WEBHOOK_FAILURE_MODES)),
    maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 })),
  },
  strict,
);
export type GuardFile = Static<typeof GuardFileSchema>;

const Attachments = Type.Record(Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 })));

export const GuardrailsFileSchema = Type.Object(
  {
    guards: Type.Optional(Type.Record(Type.String({ minLength: 1 }), GuardFileSchema)),
    apps: Type.Optional(Attachments),
    teams: Type.Optional(Attachments),
    routes: Type.Optional(Attachments),
  },
  strict,
);
export type GuardrailsFile = Static<typeof GuardrailsFileSchema>;

/** A guard as the gateway runs it: the file's, checked, with every default filled in. */
export type GuardSettings =
  | { name: string; type: 'secrets' | 'pii'; phases: GuardPhase[]; action: GuardAction; detectors: string[] }
  | {
      name: string;
      type: 'regex';
      phases: GuardPhase[];
      action: GuardAction;
      pattern: string;
      caseInsensitive: boolean;
    }
  | { name: string; type: 'words'; phases: GuardPhase[]; action: GuardAction; words: string[] }
  | {
      name: string;
      type: 'webhook';
      phases: GuardPhase[];
      /** What a webhook's `block` or `mask` answer does is the webhook's; this is only `log` or not. */
      action: GuardAction;
      url: string;
      headers: Record<string, string>;
      timeoutMs: number;
      failureMode: 'open' | 'closed';
      maxResponseBytes: number;
    };

export interface GuardrailSettings {
  guards: GuardSettings[];
  /** Guard names by app, team and route (a task's name, or `default` for requests without one). */
  apps: Record<string, string[]>;
  teams: Record<string, string[]>;
  routes: Record<string, string[]>;
}

export const WEBHOOK_DEFAULT_TIMEOUT_MS = 1000;
export const WEBHOOK_DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
