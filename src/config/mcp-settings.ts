import { type Static, Type } from 'typebox';

/**
 * The MCP gateway's settings (CONTRACT 5.7): the upstream MCP servers, the bounds of a call, and
 * each app's allow list (`apps[].mcp.allow`). Described once here; the file schema, the defaults
 * and the loader's checks (read-mcp-settings.ts) read these.
 */
const strict = { additionalProperties: false } as const;

/**
 * Letters, digits and '-': a server's name is a metrics label, a ledger value and the prefix of
 * its tools' names (`server__tool`), so it may hold no '_', which keeps that split unambiguous.
 */
export const MCP_SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9-]{0,31}$';

/** The bounds of the MCP gateway, each with its default. */
export const McpLimitsSchema = Type.Object(
  {
    callTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 600_000,
      default: 30_000,
      description: 'A tools/call the upstream has not answered by then is cut: a tool result with isError.',
    }),
    listTimeoutMs: Type.Integer({
      minimum: 50,
      maximum: 60_000,
      default: 2_000,
      description: "How long tools/list waits for an upstream's list before answering without it.",
    }),
    listCacheMs: Type.Integer({
      minimum: 0,
      maximum: 3_600_000,
      default: 10_000,
      description: "How long an upstream's tool list is reused before it is asked again.",
    }),
    maxBodyBytes: Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      default: 1024 * 1024,
      description: 'Largest POST /mcp body; more is a 413.',
    }),
    maxArgumentBytes: Type.Integer({
      minimum: 2,
      maximum: 64 * 1024 * 1024,
      default: 256 * 1024,
      description: 'Largest tools/call `arguments`, as JSON; more is refused before the upstream sees it.',
    }),
    maxConcurrentCallsPerApp: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 16,
      description: 'Tool calls of one app in progress in this instance; more are refused with isError.',
    }),
  },
  strict,
);
export type McpLimits = Static<typeof McpLimitsSchema>;

/** One upstream MCP server (`mcp.servers.<name>`): Streamable HTTP at `url`. */
export const McpServerSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, description: "The server's Streamable HTTP endpoint (http or https)." }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$" }), Type.String(), {
        ...strict,
        description: 'Sent with every request to the server (an Authorization bearer token); never logged.',
      }),
    ),
  },
  strict,
);
export type McpServerFileSettings = Static<typeof McpServerSchema>;

/** The `mcp` block of the file: the servers by name, and the bounds. */
export const McpFileSchema = Type.Object(
  {
    ...Type.Partial(McpLimitsSchema).properties,
    servers: Type.Optional(
      Type.Record(Type.String({ pattern: MCP_SERVER_NAME_PATTERN }), McpServerSchema, strict),
    ),
  },
  strict,
);

/** An app's `mcp` block: `server/*` allows every tool of a server, `server/tool` one tool. */
export const McpAppAccessSchema = Type.Object(
  {
    allow: Type.Array(Type.String({ minLength: 3, maxLength: 200 }), {
      maxItems: 1000,
      description: "Tools the app may list and call, as 'server/*' or 'server/tool'; none when absent.",
    }),
  },
  strict,
);
export type McpAppAccess = Static<typeof McpAppAccessSchema>;

/** An upstream server as the gateway uses it. */
export interface McpServerSettings {
  name: string;
  url: string;
  /** Never logged, never echoed. */
  headers: Record<string, string>;
}

export interface McpSettings extends McpLimits {
  /** The configured servers, in name order. */
  servers: McpServerSettings[];
  /** Each app's allow list entries, by app name; an app without one may use no tool. */
  allow: Record<string, string[]>;
}
