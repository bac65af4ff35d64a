import { Type } from 'typebox';
import { AnyJson, StringEnum } from '../../platform/schema-helpers.ts';

/** The health report (draft-inadvisable-health-check), for the OpenAPI document and serialisation. */
const Status = StringEnum(['pass', 'warn', 'fail'] as const);

const Check = Type.Object({
  componentType: Type.String(),
  observedValue: Type.Optional(AnyJson()),
  observedUnit: Type.Optional(Type.String()),
  status: Status,
  time: Type.String({ format: 'date-time' }),
  output: Type.Optional(Type.String()),
});

export const HealthReportSchema = Type.Object({
  status: Status,
  version: Type.String(),
  service: Type.String({ description: 'Which service answers (the gateway says inference-gateway)' }),
  description: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  checks: Type.Record(Type.String(), Type.Array(Check), {
    description:
      '`storage:responseTime` (fail: 503), `mail:transport` (information), and with an async mailing-list upstream `newsletterOutbox:pending`, `newsletterOutbox:oldestPendingAge` (warn when large) and `newsletterOutbox:failed`',
  }),
});

export const HEALTH_MEDIA_TYPE = 'application/health+json';

export const healthResponse = (description: string) => ({
  description,
  content: { [HEALTH_MEDIA_TYPE]: { schema: HealthReportSchema } },
});
