/** What `json_object` asks for: any JSON object, validated as such. */
export const JSON_OBJECT_SCHEMA: Record<string, unknown> = { type: 'object' };
