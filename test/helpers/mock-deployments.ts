import { type MockOpenAIOptions, type MockOpenAIServer, startMockOpenAI } from './mock-openai-server.ts';

/**
 * Several OpenAI mocks standing for the deployments of one slot, each with its own key (the mock
 * refuses any other with a 401), so a call that reaches a deployment with another's key fails.
 */
export interface MockDeployments {
  names: readonly string[];
  mocks: readonly MockOpenAIServer[];
  /** The mock of the deployment called `name`. */
  mock(name: string): MockOpenAIServer;
  /** Requests each deployment received, by name. */
  counts(): Record<string, number>;
  /** Forgets every mock's requests, failures and scripted replies. */
  reset(): void;
  close(): Promise<void>;
}

export function deploymentKey(name: string): string {
  return `sk-${name}-0123456789abcdef`;
}

export async function startMockDeployments(
  names: readonly string[],
  options: MockOpenAIOptions = {},
): Promise<MockDeployments> {
  const mocks = await Promise.all(
    names.map((name) => startMockOpenAI({ ...options, apiKey: deploymentKey(name) })),
  );
  const byName = new Map(names.map((name, index) => [name, mocks[index] as MockOpenAIServer]));
  return {
    names,
    mocks,
    mock(name) {
      const mock = byName.get(name);
      if (mock === undefined) throw new Error(`no deployment ${name}`);
      return mock;
    },
    counts: () => Object.fromEntries(names.map((name) => [name, byName.get(name)?.requests.length ?? 0])),
    reset: () => {
      for (const mock of mocks) mock.reset();
    },
    close: async () => {
      await Promise.all(mocks.map((mock) => mock.close()));
    },
  };
}

export interface SlotOptions {
  strategy?: 'weighted' | 'least-busy' | 'latency';
  /** Per deployment name. */
  weights?: Record<string, number>;
  models?: Record<string, string[]>;
  regions?: Record<string, string>;
}

/** `providers.<slot>` of the YAML file: an OpenAI slot over the mocks, each with its own key. */
export function deploymentsSlot(
  deployments: MockDeployments,
  options: SlotOptions = {},
): Record<string, unknown> {
  return {
    kind: 'openai',
    ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
    deployments: deployments.names.map((name) => ({
      name,
      baseUrl: deployments.mock(name).baseUrl,
      apiKey: deploymentKey(name),
      ...(options.weights?.[name] === undefined ? {} : { weight: options.weights[name] }),
      ...(options.models?.[name] === undefined ? {} : { models: options.models[name] }),
      ...(options.regions?.[name] === undefined ? {} : { region: options.regions[name] }),
    })),
  };
}

/** Runs `task(i)` for i in 0..count-1, `concurrency` at a time; resolves when all have. */
export async function runConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
