import { clientPackageVersion } from '../../helpers/client-package.ts';
import { toClientRequestFixture, writeClientFixture } from '../../helpers/client-request-fixture.ts';
import { startMockOpenAI } from '../../helpers/mock-openai-server.ts';
import { runOpenAIAgent } from '../../helpers/run-openai-agent.ts';

/**
 * Records what the OpenAI Agents SDK sends with its default settings (the Responses API) for a
 * function tool round trip, plain and streamed, straight to the recording OpenAI mock. Writes
 * test/fixtures/clients/openai-agents/*.json. Run by hand when the SDK's version changes:
 * `node test/clients/capture/capture-openai-agents.ts`, then `npx biome check --write
 * test/fixtures/clients`.
 */

for (const stream of [false, true]) {
  const mock = await startMockOpenAI();
  try {
    mock.replyNext({
      toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    mock.replyNext({ text: 'It is sunny in Paris.' });
    const run = await runOpenAIAgent({
      baseUrl: mock.baseUrl,
      apiKey: 'sk-agents-key',
      prompt: 'Weather in Paris?',
      stream,
    });
    const scrubber = { replacements: [['sk-agents-key', '<client-key>']] as [string, string][] };
    const name = `openai-agents/function-tool${stream ? '-streamed' : ''}.sent.json`;
    writeClientFixture(name, {
      client: `@openai/agents ${clientPackageVersion('@openai/agents')} (openai ${clientPackageVersion('openai')})`,
      what: 'what the Agents SDK sent with its default settings, straight to the recording OpenAI mock',
      observed: { finalOutput: run.finalOutput, toolCalls: run.toolCalls },
      requests: mock.requests.map((request) => toClientRequestFixture(request, scrubber)),
    });
    console.log(
      `## ${name}: ${mock.requests.length} request(s), final output ${JSON.stringify(run.finalOutput)}`,
    );
  } finally {
    await mock.close();
  }
}
