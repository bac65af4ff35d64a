import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './load-config.ts';

describe('metrics and tracing settings', () => {
  it('metrics are on and open by default; tracing is off without an endpoint', () => {
    const config = loadConfig({}, []);
    assert.deepEqual(config.metrics, { enabled: true });
    assert.equal(config.tracing, undefined);
  });

  it('the general endpoint gets /v1/traces; the traces endpoint is used as given and wins', () => {
    const general = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, []);
    assert.deepEqual(general.tracing, {
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'inference-gateway',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    const traces = loadConfig(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.com/api/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'gw',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      },
      [],
    );
    assert.deepEqual(traces.tracing, {
      url: 'https://otlp.example.com/api/traces',
      protocol: 'http/json',
      serviceName: 'gw',
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
  });

  for (const [env, pattern] of [
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL.*grpc is not supported/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT/],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER/],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN.*16 characters/],
    [{ METRICS_ENABLED: 'maybe' }, /METRICS_ENABLED/],
  ] as const) {
    it(`refuses ${JSON.stringify(env)} naming the setting`, () => {
      assert.throws(() => loadConfig(env, []), pattern);
    });
  }

  it('METRICS_TOKEN is never echoed in an error', () => {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'secret-x' }, []),
      (error: Error) => !error.message.includes('secret-x'),
    );
  });
});
