/**
 * JSON Schemas of the admin API's bodies (CONTRACT 6.5): unknown fields refused, every string
 * and list bounded, so a stranger's body is refused by Fastify's validator before any work. The
 * finer checks (patterns, budgets' bounds, names) are the governance module's (settings-input.ts).
 */
const strict = { additionalProperties: false } as const;
const NAME = { type: 'string', minLength: 1, maxLength: 64 } as const;
const PATTERNS = { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 256 } } as const;
const NUMBER = { type: 'number' } as const;
const LIMITS = {
  type: 'object',
  ...strict,
  properties: {
    requestsPerMinute: NUMBER,
    tokensPerMinute: NUMBER,
    concurrentRequests: NUMBER,
    dailyBudgetUsd: NUMBER,
    monthlyBudgetUsd: NUMBER,
    perEndUser: {
      type: 'object',
      ...strict,
      properties: { requestsPerMinute: NUMBER, dailyBudgetUsd: NUMBER },
    },
  },
} as const;
const MCP = {
  type: 'object',
  ...strict,
  required: ['allow'],
  properties: {
    allow: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 3, maxLength: 200 } },
  },
} as const;
const METADATA = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { maxLength: 64 },
  additionalProperties: { type: 'string', maxLength: 256 },
} as const;
const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] });

const SETTINGS = {
  limits: nullable(LIMITS),
  models: nullable(PATTERNS),
  mcp: nullable(MCP),
  metadata: nullable(METADATA),
} as const;

export const TEAM_CREATE = {
  type: 'object',
  ...strict,
  required: ['name'],
  properties: { name: NAME, ...SETTINGS },
};
export const TEAM_PATCH = { type: 'object', ...strict, properties: SETTINGS };
export const APP_CREATE = {
  type: 'object',
  ...strict,
  required: ['name'],
  properties: { name: NAME, team: nullable(NAME), ...SETTINGS },
};
export const APP_PATCH = { type: 'object', ...strict, properties: { team: nullable(NAME), ...SETTINGS } };
export const KEY_CREATE = {
  type: 'object',
  ...strict,
  properties: { name: { type: 'string', maxLength: 64 }, expiresAt: { type: 'string', maxLength: 64 } },
};
export const KEY_ROTATE = { type: 'object', ...strict, properties: { gracePeriodSeconds: NUMBER } };
export const TOKEN_CREATE = {
  type: 'object',
  ...strict,
  properties: { name: { type: 'string', maxLength: 64 } },
};
/** Path parameters: names and ids as long as they can be, no longer. */
export const NAME_PARAMS = {
  type: 'object',
  properties: {
    team: { type: 'string', maxLength: 64 },
    app: { type: 'string', maxLength: 64 },
    id: { type: 'string', maxLength: 64 },
  },
};
