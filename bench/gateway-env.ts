import { BENCH_APP, BENCH_SECRET, MOCK_API_KEY } from './scenarios.ts';

/**
 * The gateway as production would run it in front of one OpenAI-compatible upstream: every slot
 * bound to the mock (no simulated provider, so nothing of the simulator is loaded), info logging,
 * the embedded ledger in `dataDir`.
 */
export function gatewayEnv(port: number, mockPort: number, dataDir: string): Record<string, string> {
  const env: Record<string, string> = {
    SURFACES: 'gateway',
    GATEWAY_PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    GATEWAY_APPS: `${BENCH_APP}:${BENCH_SECRET}`,
  };
  for (const slot of ['A', 'B', 'C']) {
    env[`PROVIDER_${slot}_KIND`] = 'openai';
    env[`PROVIDER_${slot}_BASE_URL`] = `http://127.0.0.1:${mockPort}/v1`;
    env[`PROVIDER_${slot}_API_KEY`] = MOCK_API_KEY;
    env[`PROVIDER_${slot}_CHAT_MODEL`] = 'gpt-4o-mini';
    env[`PROVIDER_${slot}_EMBED_MODEL`] = 'text-embedding-3-small';
  }
  return env;
}
