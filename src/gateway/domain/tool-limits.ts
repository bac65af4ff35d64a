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

/**
 * The longest tool call id a request may carry, in every door. Ids the gateway hands out for a
 * Gemini call carry the call's thought signature (providers/gemini/signed-call-id.ts), up to 64 KiB
 * of it, which makes ids of up to about 87,400 characters; this leaves room above that and still
 * bounds what a client can put in an id.
 */
export const MAX_TOOL_CALL_ID_LENGTH = 96 * 1024;
