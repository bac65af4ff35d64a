/**
 * Bounds on the tools a chat request may carry (CONTRACT 4.1). Each tool's parameters schema is
 * also held to the limits of /v1/json schemas (json.maxSchemaBytes, json.maxSchemaDepth and the
 * fixed caps of json/schema-limits.ts); these bound the list as a whole. OpenAI takes at most 128
 * tools and names of this pattern, so a request valid here is valid at every vendor.
 */

/** Tools in one request. */
export const MAX_TOOLS = 128;

/** Tool calls on one assistant message. */
export const MAX_TOOL_CALLS_PER_MESSAGE = 128;

/** What a tool name may be: the pattern OpenAI, Anthropic and Gemini all accept. */
export const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

/** All tool definitions of a request together, as JSON text. */
export const MAX_TOOLS_BYTES = 512 * 1024;
