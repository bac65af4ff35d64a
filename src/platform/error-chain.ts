/**
 * An error's message followed by those of its causes (`a: b: c`), for an operator's terminal.
 * A DependencyUnavailableError says only which dependency failed, so that clients learn no more;
 * the driver's reason ("connect ECONNREFUSED 10.0.0.7:5432") is its cause, and the operator
 * running the CLI or starting the server needs it. Never for an answer to a client.
 */
export function messageWithCauses(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && current !== null && !seen.has(current); ) {
    seen.add(current);
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(': ');
}
