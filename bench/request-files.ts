import { Session } from 'node:inspector/promises';
import { postMessages } from '../test/helpers/anthropic-door-client.ts';
import { createGateway } from '../test/helpers/gateway-harness.ts';
import { startMockAnthropic } from '../test/helpers/mock-anthropic-server.ts';

/**
 * `node bench/request-files.ts`: the files of src/ that one streamed /v1/messages on an anthropic
 * slot runs (the same-vendor lane), read from V8's precise coverage after 20 warm-up requests
 * (counts reset just before the measured one): a file is counted when a function of it was
 * called. The gateway is the tests' in-process harness on the recording mock. Background timers
 * (the batch runner's poll) may add a file; decision 0025 leaves src/gateway/batches/ out.
 */
const mock = await startMockAnthropic({ eventDelayMs: 0 });
const gw = await createGateway({
  env: { PROVIDER_A_KIND: 'anthropic', PROVIDER_A_BASE_URL: mock.origin, PROVIDER_A_API_KEY: 'sk-ant-bench' },
});
const body = JSON.stringify({
  model: 'provider-a/claude-sonnet-4-5',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});
try {
  for (let i = 0; i < 20; i++) {
    const warm = await postMessages(gw, body, '');
    if (warm.statusCode !== 200) throw new Error(`warm-up answered ${warm.statusCode}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  const reply = await postMessages(gw, body, '');
  // The run's record is written just after the answer.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const root = new URL('../', import.meta.url).href;
  const files = result
    .filter((script) => script.url.startsWith(`${root}src/`))
    .filter((script) => script.functions.some((fn) => fn.ranges.some((range) => range.count > 0)))
    .map((script) => script.url.slice(root.length))
    .sort();
  const gateway = files.filter(
    (file) => file.startsWith('src/gateway/') && !file.startsWith('src/gateway/batches/'),
  );
  process.stdout.write(
    `status ${reply.statusCode}; ${gateway.length} files of src/gateway/ (${files.length} of src/)\n`,
  );
  process.stdout.write(`${files.join('\n')}\n`);
} finally {
  await gw.close();
  await mock.close();
}
