import { loadClientLibrary } from './client-package.ts';

export interface AgentRunOptions {
  /** An OpenAI base URL, with /v1. */
  baseUrl: string;
  apiKey: string;
  prompt: string;
  stream: boolean;
}

export interface AgentRun {
  finalOutput: unknown;
  /** The arguments the model called `get_weather` with, as the tool received them. */
  toolCalls: unknown[];
}

/**
 * One run of an OpenAI Agents SDK agent (the test package's @openai/agents) with its default
 * settings, the Responses API among them, given only a client with a base URL and key (in an
 * OpenAIProvider, the SDK's default provider, of its own): one
 * function tool, `get_weather`, that answers "sunny". Tracing is switched off, as it would export
 * to OpenAI's servers, which the tests cannot reach; nothing else is changed. The caller skips
 * first when the SDK is not installed.
 */
export async function runOpenAIAgent(options: AgentRunOptions): Promise<AgentRun> {
  const sdk = loadClientLibrary('@openai/agents');
  const { OpenAI } = loadClientLibrary('openai');
  sdk.setTracingDisabled(true);
  // A provider of its own per run: the default provider keeps the first client it was given.
  const openAIClient = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0 });
  const runner = new sdk.Runner({ modelProvider: new sdk.OpenAIProvider({ openAIClient }) });
  const toolCalls: unknown[] = [];
  const getWeather = sdk.tool({
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
    execute: async (input: unknown) => {
      toolCalls.push(input);
      return 'sunny';
    },
  });
  const agent = new sdk.Agent({
    name: 'Weather',
    instructions: 'Answer about the weather.',
    tools: [getWeather],
  });
  if (!options.stream) {
    const result = await runner.run(agent, options.prompt);
    return { finalOutput: result.finalOutput, toolCalls };
  }
  const result = await runner.run(agent, options.prompt, { stream: true });
  for await (const _event of result) {
    // Read to the end: the run goes on only as its events are read.
  }
  await result.completed;
  return { finalOutput: result.finalOutput, toolCalls };
}
