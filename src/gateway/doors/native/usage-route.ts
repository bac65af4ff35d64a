import { Type } from 'typebox';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { readUsage, type UsageReadingDeps } from '../../services/ledger/read-usage.ts';
import { errorResponses } from './openapi-responses.ts';

const TotalsRow = Type.Object({
  day: Type.Optional(Type.String()),
  provider: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  operation: Type.Optional(Type.String()),
  frontDoor: Type.Optional(
    Type.String({ description: 'native, openai, anthropic, responses, gemini or mcp' }),
  ),
  deployment: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: "the slot's deployment; null for a slot of one",
    }),
  ),
  tool: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: "an MCP tool call's server__tool; null for other requests",
    }),
  ),
  endUser: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        'the end user the request named (x-gateway-end-user, metadata.user_id, user); null when none',
    }),
  ),
  batch: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'the batch a request belonged to (CONTRACT 6.7); null for live requests',
    }),
  ),
  requests: Type.Integer(),
  errors: Type.Integer(),
  tokensIn: Type.Integer({ description: 'every input token, prompt-cache reads and writes included' }),
  tokensOut: Type.Integer(),
  costUsd: Type.Number(),
  tokensInCacheRead: Type.Integer({ description: 'input tokens read from the upstream prompt cache' }),
  tokensInCacheWrite: Type.Integer({ description: 'input tokens written to the upstream prompt cache' }),
  cacheHits: Type.Integer({ description: "answers from the gateway's response cache" }),
  costSavedUsd: Type.Number({ description: 'what the response cache hits would have cost' }),
});

export function registerUsageRoute(app: TypedInstance, deps: GatewayDeps & UsageReadingDeps): void {
  app.get(
    '/v1/usage',
    {
      schema: {
        summary:
          "The calling app's own usage totals by day, provider, model, operation, front door, deployment, MCP tool or batch",
        operationId: 'usage',
        querystring: Type.Object(
          {
            from: Type.Optional(
              Type.String({ description: 'First UTC day, YYYY-MM-DD (default: first day of this month)' }),
            ),
            to: Type.Optional(Type.String({ description: 'Last UTC day, inclusive (default: today)' })),
            groupBy: Type.Optional(
              Type.String({
                description:
                  'Comma-separated: day, provider, model, operation, frontDoor, deployment, tool, endUser, batch (default: day)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            app: Type.String(),
            from: Type.String(),
            to: Type.String(),
            groupBy: Type.Array(Type.String()),
            totals: TotalsRow,
            rows: Type.Array(TotalsRow),
          }),
          ...errorResponses,
        },
      },
    },
    (request) => readUsage(deps.storage, deps.recorder, request.appName, request.query, deps.clock.now()),
  );
}
