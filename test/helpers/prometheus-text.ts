/** One sample line of the Prometheus text format. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (version 0.0.4): comments skipped, label values unescaped. */
export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, raw] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[name as string] = (raw as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include every pair of `where`. */
export function sumOf(
  samples: readonly PromSample[],
  name: string,
  where: Record<string, string> = {},
): number {
  let sum = 0;
  for (const sample of samples) {
    if (sample.name !== name) continue;
    if (Object.entries(where).every(([key, value]) => sample.labels[key] === value)) sum += sample.value;
  }
  return sum;
}
