import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type Implementation,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createSiteMcpServer } from './create-site-mcp-server.ts';
import type { SiteToolsContext } from './site-tool-handlers.ts';

/** What a client would learn by connecting: the basis of the MCP server card. */
export interface McpServerDescription {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  tools: Tool[];
  protocolVersions: string[];
}

/**
 * Asks a real server instance, over an in-memory transport, what `initialize` and `tools/list`
 * answer, so the server card can never drift from the protocol (the card's tools are checked
 * against tools/list by clients, as SEP-2127 requires).
 */
export async function describeSiteMcpServer(context: SiteToolsContext): Promise<McpServerDescription> {
  const server = createSiteMcpServer(context);
  const client = new Client({ name: 'server-card-builder', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const serverInfo = client.getServerVersion();
    const capabilities = client.getServerCapabilities();
    if (serverInfo === undefined || capabilities === undefined)
      throw new Error('the MCP server did not initialize');
    return {
      serverInfo,
      capabilities,
      tools,
      // Every revision the SDK negotiates, newest first: a client asking for one of them gets it.
      protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    };
  } finally {
    await client.close();
    await server.close();
  }
}
