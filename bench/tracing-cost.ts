import { createServer } from 'node:http';
import { buildApplication } from '../src/app.ts';
import { loadConfig } from '../src/config/load-config.ts';
import { createLogger } from '../src/platform/logger.ts';

/**
 * `node bench/tracing-cost.ts`: CPU per chat request through `inject()` (simulated provider, no
 * network), with tracing off, with every request traced to an OTLP/HTTP sink in this process, and
 * with one in ten traced (the rest get unsampled spans), in alternating rounds; the difference is
 * what tracing adds, export included.
 */
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const { port } = sink.address() as { port: number };
const base = {
  DATA_DIR: ':memory:',
  SURFACES: 'gateway',
  GATEWAY_APPS: 'bench:bench-secret-0123456789',
  LOG_LEVEL: 'warn',
};
const auth = { 'x-gateway-app': 'bench', 'x-gateway-secret': 'bench-secret-0123456789' };
const apps = {
  off: await buildApplication(loadConfig(base, []), createLogger({ level: 'warn' })),
  on: await buildApplication(
    loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, []),
    createLogger({ level: 'warn' }),
  ),
  'on, 10% sampled': await buildApplication(
    loadConfig(
      {
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      },
      [],
    ),
    createLogger({ level: 'warn' }),
  ),
};
const payload = { messages: [{ role: 'user', content: 'hello there' }] };
async function round(app: (typeof apps)['on'], n: number): Promise<number> {
  const gateway = app.gateway;
  if (gateway === undefined) throw new Error('no gateway');
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++)
    await gateway.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload });
  await app.tracing?.flush();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}
for (const app of Object.values(apps)) await round(app, 500);
const results: Record<string, number[]> = { off: [], on: [], 'on, 10% sampled': [] };
for (let r = 0; r < 5; r++)
  for (const [name, app] of Object.entries(apps)) results[name]?.push(await round(app, 1000));
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const off = median(results.off ?? []);
for (const [name, values] of Object.entries(results)) {
  const cpu = median(values);
  console.log(
    `tracing ${name}: ${cpu.toFixed(0)} µs CPU/request (${name === 'off' ? 'the reference' : `+${(cpu - off).toFixed(0)} µs`})`,
  );
}
for (const app of Object.values(apps)) await app.close();
sink.close();
