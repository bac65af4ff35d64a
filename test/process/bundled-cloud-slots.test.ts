import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { buildServer } from '../../scripts/build-server.ts';
import { type MockBedrockServer, startMockBedrock } from '../helpers/mock-bedrock-server.ts';
import { type MockVertexServer, startMockVertex } from '../helpers/mock-vertex-server.ts';
import { TEST_AWS_CREDENTIALS } from '../helpers/sigv4-check.ts';
import { type RunningServer, spawnServer } from '../helpers/spawn-server.ts';

/**
 * The cloud SDKs in the bundle. They load on a cloud slot's first use, not at start-up
 * (docs/performance.md, idle memory), and they are CommonJS: in the bundle a package imported with
 * `import()` exposes only its default export, so each is imported through a module of our own.
 * The other cloud tests run the sources, where Node gives named exports either way; this file runs
 * the bundle: a Bedrock slot signs with the SDK's chain and reads the SDK's event-stream frames,
 * a vertex slot signs its service-account assertion with jose, and Google's auth library (the way
 * to Application Default Credentials, which would reach Google's servers) is built from its chunk.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = join(ROOT, 'bench', 'results', 'tmp', `bundled-cloud-slots-${process.pid}`);
const KEY = 'cloud-app:cloud-secret-0123456789';
const CLAUDE = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

/** A chat on the native API, which names the slot (`provider`) and its model apart. */
async function chat(port: number | undefined, slotModel: string, stream: boolean) {
  const [provider, model] = slotModel.split(/\/(.*)/) as [string, string];
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ provider, model, messages: [{ role: 'user', content: 'Hello' }], stream }),
  });
  return { status: response.status, text: await response.text() };
}

describe('the cloud SDKs in the bundle', { timeout: 180_000 }, () => {
  let metafile: Metafile;
  let bedrock: MockBedrockServer;
  let vertex: MockVertexServer;
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'bundled-cloud-'));

  before(
    async () => {
      [metafile, bedrock, vertex] = await Promise.all([
        buildServer(OUT_DIR),
        startMockBedrock({ region: 'eu-west-1' }),
        startMockVertex(),
      ]);
      server = await spawnServer(
        {
          DATA_DIR: dir,
          SURFACES: 'gateway',
          NODE_ENV: 'production',
          GATEWAY_APPS: KEY,
          AWS_ACCESS_KEY_ID: TEST_AWS_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: TEST_AWS_CREDENTIALS.secretAccessKey,
          AWS_SESSION_TOKEN: TEST_AWS_CREDENTIALS.sessionToken,
          AWS_EC2_METADATA_DISABLED: 'true',
          PROVIDER_A_KIND: 'bedrock',
          PROVIDER_A_BASE_URL: bedrock.origin,
          PROVIDER_A_REGION: 'eu-west-1',
          PROVIDER_A_CHAT_MODEL: CLAUDE,
          PROVIDER_B_KIND: 'vertex',
          PROVIDER_B_BASE_URL: vertex.origin,
          PROVIDER_B_PROJECT: vertex.project,
          PROVIDER_B_LOCATION: 'global',
          GOOGLE_APPLICATION_CREDENTIALS: vertex.keyFile(dir),
        },
        1,
        [process.execPath, join(OUT_DIR, 'main.js')],
      );
    },
    { timeout: 150_000 },
  );
  after(async () => {
    await server?.stop();
    await Promise.all([bedrock?.close(), vertex?.close()]);
    rmSync(OUT_DIR, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs a Bedrock request with the SDK chain and reads its event-stream frames', async () => {
    const plain = await chat(server.gatewayPort, `provider-a/${CLAUDE}`, false);
    assert.equal(plain.status, 200, plain.text);
    assert.match(plain.text, /Hello from Bedrock\./);
    const streamed = await chat(server.gatewayPort, `provider-a/${CLAUDE}`, true);
    assert.equal(streamed.status, 200, streamed.text);
    assert.match(streamed.text, /Hello/);
    assert.match(streamed.text, /event: done/);
    assert.deepEqual(
      bedrock.requests.map((request) => [request.operation, request.auth]),
      [
        ['converse', 'sigv4'],
        ['converse-stream', 'sigv4'],
      ],
    );
    assert.deepEqual(bedrock.refusals, []);
  });

  it("signs a vertex slot's service-account assertion with jose", async () => {
    const answer = await chat(server.gatewayPort, 'provider-b/gemini-2.5-flash', false);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /Hello from Vertex\./);
    assert.equal(vertex.tokenFetches, 1);
    assert.deepEqual(vertex.refusals, []);
  });

  it("builds Google's auth library from its chunk for Application Default Credentials", async () => {
    const [chunk] = Object.entries(metafile.outputs).filter(([, output]) =>
      output.entryPoint?.endsWith('src/gateway/providers/vertex/google-adc-fetch.ts'),
    );
    assert.ok(chunk !== undefined, 'google-adc-fetch.ts is a chunk of its own');
    const { applicationDefaultFetch } = (await import(pathToFileURL(join(ROOT, chunk[0])).href)) as {
      applicationDefaultFetch: (scope: string, keyFile: string | undefined) => unknown;
    };
    // An authorized-user file: the library takes it without a call out (it refreshes on first use).
    const keyFile = join(dir, 'user.json');
    writeFileSync(
      keyFile,
      JSON.stringify({ type: 'authorized_user', client_id: 'c', client_secret: 's', refresh_token: 'r' }),
    );
    assert.equal(
      typeof applicationDefaultFetch('https://www.googleapis.com/auth/cloud-platform', keyFile),
      'function',
    );
  });
});
