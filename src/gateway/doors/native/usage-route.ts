import { Type } from 'typebox';
import type { TypedInstance } from '../../http/typed-instance.ts';
import type { GatewayDeps } from '../../services/gateway-deps.ts';
import { readUsage, type UsageReadingDeps } from '../../services/read-usage.ts';
import { errorResponses } from './openapi-responses.ts';

const TotalsRow = Type.Object({
  day: Type.Optional(Type.String()),
  provider: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  operation: Type.Optional(Type.String()),
  frontDoor: Type.Optional(Type.String({ description: 'native, openai or anthropic' })),
  requests: Type.Integer(),
  errors: Type.Integer(),
  tokensIn: Type.Integer(),
  tokensOut: Type.Integer(),
  costUsd: Type.Number(),
});

export function registerUsageRoute(app: TypedInstance, deps: GatewayDeps & UsageReadingDeps): void {
  app.get(
    '/v1/usage',
    {
      schema: {
        summary: "The calling app's own usage totals by day, provider, model, operation or front door",
        operationId: 'usage',
        querystring: Type.Object(
          {
            from: Type.Optional(
              Type.String({ description: 'First UTC day, YYYY-MM-DD (default: first day of this month)' }),
            ),
            to: Type.Optional(Type.String({ description: 'Last UTC day, inclusive (default: today)' })),
            groupBy: Type.Optional(
              Type.String({
                description: 'Comma-separated: day, provider, model, operation, frontDoor (default: day)',
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
