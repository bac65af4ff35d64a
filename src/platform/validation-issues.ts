import type { ErrorObject } from 'ajv';
import type { FieldIssue } from './errors.ts';

/**
 * Turns Ajv errors into `{path, message}` items: `path` is the JSON Pointer (RFC 6901) of the
 * offending value; for a missing property, the pointer of its parent object with a message
 * naming the property. Duplicates (Ajv may report one fault twice) are dropped.
 */
export function toFieldIssues(errors: readonly ErrorObject[] | null | undefined): FieldIssue[] {
  if (!errors) return [];
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = toFieldIssue(error);
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toFieldIssue(error: ErrorObject): FieldIssue {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path, message: `must have required property '${String(params.missingProperty)}'` };
    case 'additionalProperties':
      return {
        path: `${path}/${escapePointer(String(params.additionalProperty))}`,
        message: 'is not an allowed property',
      };
    case 'unevaluatedProperties':
      return {
        path: `${path}/${escapePointer(String(params.unevaluatedProperty))}`,
        message: 'is not an allowed property',
      };
    case 'enum':
      return {
        path,
        message: `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'type': {
      const type = Array.isArray(params.type) ? params.type.join(',') : String(params.type);
      return { path, message: `must be ${type.replaceAll(',', ' or ')}` };
    }
    case 'const':
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
