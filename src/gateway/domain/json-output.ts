/**
 * One way the model's output fails: a JSON Pointer into it and what is wrong there. The same shape
 * as the platform's `FieldIssue` (which validation errors carry), declared here because the
 * domain imports nothing outside itself but configuration types.
 */
export interface OutputIssue {
  path: string;
  message: string;
}

export type ParsedOutput = { ok: true; value: unknown } | { ok: false; issues: OutputIssue[] };

const FENCED = /^\s*```(?:json|JSON)?\s*\n?([\s\S]*?)\n?\s*```\s*$/;

/** Reads a model's text as JSON, tolerating one Markdown code fence around it. */
export function parseModelOutput(text: string): ParsedOutput {
  const fenced = FENCED.exec(text);
  const candidate = (fenced?.[1] ?? text).trim();
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: '', message: `output is not valid JSON (${(error as Error).message})` }],
    };
  }
}

const MAX_ISSUES_IN_PROMPT = 20;

/** The instruction sent with a re-ask: what was wrong, where, and what to do. */
export function buildReaskPrompt(issues: readonly OutputIssue[]): string {
  const lines = issues
    .slice(0, MAX_ISSUES_IN_PROMPT)
    .map((issue) => `- at "${issue.path || '/'}": ${issue.message}`);
  return [
    'Your previous reply did not satisfy the required JSON Schema:',
    ...lines,
    'Reply again with only the corrected JSON value: no prose and no code fence.',
  ].join('\n');
}

/** Instruction for upstreams without native structured output: the schema goes into the prompt. */
export function buildSchemaInstruction(schemaName: string, schema: unknown): string {
  return [
    `Reply with only a JSON value that conforms to the JSON Schema named "${schemaName}" below.`,
    'No prose, no code fence.',
    JSON.stringify(schema),
  ].join('\n');
}
