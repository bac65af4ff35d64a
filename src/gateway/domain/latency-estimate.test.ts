import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addLatencySample,
  LATENCY_PROBE_MS,
  newLatencyEstimate,
  scoreLatency,
  touchLatencyEstimate,
} from './latency-estimate.ts';

describe('latency estimate', () => {
  it('is unknown until sampled, then the first sample', () => {
    const estimate = newLatencyEstimate();
    assert.equal(scoreLatency(estimate, 0), undefined);
    addLatencySample(estimate, 40, 0);
    assert.equal(scoreLatency(estimate, 0), 40);
  });

  it('moves at least a fifth of the way per sample, and almost all the way after a pause', () => {
    const estimate = newLatencyEstimate();
    addLatencySample(estimate, 20, 0);
    addLatencySample(estimate, 420, 1);
    assert.ok(Math.abs((estimate.ms as number) - 100) < 1, String(estimate.ms));
    addLatencySample(estimate, 20, 5_001);
    assert.ok((estimate.ms as number) < 21, String(estimate.ms));
  });

  it('drifts its score toward 0 while not touched, by e every LATENCY_PROBE_MS; a pick stops the drift', () => {
    const estimate = newLatencyEstimate();
    addLatencySample(estimate, 400, 0);
    assert.ok(Math.abs((scoreLatency(estimate, LATENCY_PROBE_MS) as number) - 400 / Math.E) < 1e-9);
    touchLatencyEstimate(estimate, 3_000);
    assert.equal(scoreLatency(estimate, 3_000), 400);
  });
});
