import { BENCH_APP, BENCH_SECRET, MOCK_API_KEY, RELAY_MODEL } from './scenarios.ts';

/**
 * The gateway as production would run it in front of the mock upstream (no simulated provider,
 * so nothing of the simulator is loaded), info logging, the embedded ledger in `dataDir`.
 *
 * Slots A and C are OpenAI-compatible; slot B is of kind `anthropic`, on the mock's Messages API,
 * for the Anthropic door's same-vendor lane (`messages-relay`). No other workload reaches B: the
 * OpenAI-format models (`gpt-4o-mini`, the embedding models) belong to A, the default routes
 * start with A and only fall over to B when A fails (it does not: the mock answers), and a
 * Claude model name goes to the first anthropic slot, B.
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
    // One worker, as every row before workers was measured; the variants add every core.
    GATEWAY_WORKERS: '1',
  };
  for (const slot of ['A', 'C']) {
    env[`PROVIDER_${slot}_KIND`] = 'openai';
    env[`PROVIDER_${slot}_BASE_URL`] = `http://127.0.0.1:${mockPort}/v1`;
    env[`PROVIDER_${slot}_API_KEY`] = MOCK_API_KEY;
    env[`PROVIDER_${slot}_CHAT_MODEL`] = 'gpt-4o-mini';
    env[`PROVIDER_${slot}_EMBED_MODEL`] = 'text-embedding-3-small';
  }
  // The Anthropic adapter appends `/v1/messages` to an origin, as to https://api.anthropic.com.
  env['PROVIDER_B_KIND'] = 'anthropic';
  env['PROVIDER_B_BASE_URL'] = `http://127.0.0.1:${mockPort}`;
  env['PROVIDER_B_API_KEY'] = MOCK_API_KEY;
  env['PROVIDER_B_CHAT_MODEL'] = RELAY_MODEL;
  return env;
}
