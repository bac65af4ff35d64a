import { type Static, Type } from 'typebox';
import { StringEnum } from '../platform/schema-helpers.ts';
import { checkUrl } from './check-url.ts';
import { ConfigError } from './config-error.ts';
import { withDefaults } from './read-defaults.ts';

const strict = { additionalProperties: false } as const;

/** The OTLP/HTTP encodings the trace exporter speaks; gRPC is not offered (see decision 0009). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The samplers of the OpenTelemetry environment specification (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export const MetricsSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Whether requests are counted and GET /metrics is served (false: 404, nothing counted).',
    }),
    token: Type.Optional(
      Type.String({
        minLength: 16,
        description: 'When set, GET /metrics asks for `Authorization: Bearer <token>`; never logged.',
      }),
    ),
  },
  strict,
);
export type MetricsSettings = Static<typeof MetricsSettingsSchema>;

/** The metrics settings; a token short enough to guess is refused at start-up. */
export function readMetrics(file: Partial<MetricsSettings> | undefined): MetricsSettings {
  const settings = withDefaults(MetricsSettingsSchema, file);
  if (settings.token !== undefined && settings.token.length < MIN_TOKEN_CHARS)
    throw new ConfigError('METRICS_TOKEN', `must be at least ${MIN_TOKEN_CHARS} characters`);
  return settings;
}

const MIN_TOKEN_CHARS = 16;

/** Trace export, as the OpenTelemetry environment variables name it; off unless an endpoint is set. */
export const TracingFileSchema = Type.Object(
  {
    endpoint: Type.Optional(Type.String({ minLength: 1 })),
    tracesEndpoint: Type.Optional(Type.String({ minLength: 1 })),
    protocol: Type.Optional(StringEnum(OTLP_PROTOCOLS)),
    tracesProtocol: Type.Optional(StringEnum(OTLP_PROTOCOLS)),
    serviceName: Type.Optional(Type.String({ minLength: 1 })),
    sampler: Type.Optional(StringEnum(TRACE_SAMPLERS)),
    samplerArg: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  strict,
);
export type TracingFileSettings = Static<typeof TracingFileSchema>;

export interface TracingSettings {
  /** Where spans are POSTed: the traces endpoint as given, or the general endpoint + `/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  serviceName: string;
  sampler: TraceSampler;
  /** The ratio of the `traceidratio` samplers. */
  ratio: number;
}

export const DEFAULT_SERVICE_NAME = 'inference-gateway';

/** Tracing is on only when an OTLP endpoint is configured; undefined otherwise. */
export function readTracing(file: TracingFileSettings | undefined): TracingSettings | undefined {
  if (file === undefined) return undefined;
  const traces = checkUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', file.tracesEndpoint, ['http:', 'https:']);
  const general = checkUrl('OTEL_EXPORTER_OTLP_ENDPOINT', file.endpoint, ['http:', 'https:']);
  // The specification: the signal's own endpoint is used as is; the general one gets /v1/traces.
  const url = traces ?? (general === undefined ? undefined : `${general.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return undefined;
  return {
    url,
    protocol: file.tracesProtocol ?? file.protocol ?? 'http/protobuf',
    serviceName: file.serviceName ?? DEFAULT_SERVICE_NAME,
    sampler: file.sampler ?? 'parentbased_always_on',
    ratio: file.samplerArg ?? 1,
  };
}

/** `http/protobuf` or `http/json`; `grpc` gets a message of its own, since it is the usual mistake. */
export function parseOtlpProtocol(raw: string, name: string): OtlpProtocol {
  const value = raw.toLowerCase();
  if (value === 'grpc') throw new ConfigError(name, 'grpc is not supported: use http/protobuf or http/json');
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(value))
    throw new ConfigError(name, `must be one of ${OTLP_PROTOCOLS.join(', ')} (got '${raw}')`);
  return value as OtlpProtocol;
}
