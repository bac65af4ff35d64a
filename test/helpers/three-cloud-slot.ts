import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockAnthropicServer } from './mock-anthropic-server.ts';
import type { MockBedrockServer } from './mock-bedrock-server.ts';
import type { MockVertexServer } from './mock-vertex-server.ts';

/** The three mocks one Claude slot's deployments point at, and the Vertex key file. */
export interface ThreeClouds {
  anthropic: MockAnthropicServer;
  bedrock: MockBedrockServer;
  vertex: MockVertexServer;
  keyFile: string;
}

/** Writes the Vertex mock's service-account key to a temporary file, for its deployment. */
export function vertexKeyFile(vertex: MockVertexServer): string {
  return vertex.keyFile(mkdtempSync(join(tmpdir(), 'vertex-key-')));
}

/**
 * `provider-a`: an anthropic slot serving claude-sonnet-4-5 from three deployments, Anthropic,
 * Bedrock (us-east-1) and Vertex (us-east5), each cloud with its own id for the model; for the
 * tests of a Claude Code session that stays on one deployment and moves only when it fails.
 */
export function threeCloudProviders(clouds: ThreeClouds): Record<string, unknown> {
  return {
    'provider-a': {
      kind: 'anthropic',
      apiKey: 'sk-ant-test',
      models: ['claude-sonnet-4-5'],
      deployments: [
        { name: 'anthropic', baseUrl: clouds.anthropic.origin },
        {
          name: 'bedrock',
          kind: 'bedrock',
          baseUrl: clouds.bedrock.origin,
          region: 'us-east-1',
          modelMap: { 'claude-sonnet-4-5': 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        },
        {
          name: 'vertex',
          kind: 'vertex',
          baseUrl: clouds.vertex.origin,
          project: clouds.vertex.project,
          location: 'us-east5',
          credentialsFile: clouds.keyFile,
          modelMap: { 'claude-sonnet-4-5': 'claude-sonnet-4-5@20250929' },
        },
      ],
    },
  };
}
