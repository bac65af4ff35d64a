import type { Finding } from './finding.ts';

/** What a match is replaced with (CONTRACT 6.6). */
export function maskOf(type: string): string {
  return `[REDACTED:${type}]`;
}

/**
 * Findings in text order, overlapping ones merged (the first keeps its type: an IBAN whose digit
 * groups also read as a card is one IBAN).
 */
export function mergeFindings(findings: readonly Finding[]): Finding[] {
  if (findings.length < 2) return [...findings];
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Finding[] = [];
  for (const finding of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && finding.start < last.end) last.end = Math.max(last.end, finding.end);
    else merged.push({ ...finding });
  }
  return merged;
}

/** The text with every finding replaced by its mask, in one pass over the merged findings. */
export function maskText(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  let masked = '';
  let from = 0;
  for (const finding of mergeFindings(findings)) {
    masked += text.slice(from, finding.start) + maskOf(finding.type);
    from = finding.end;
  }
  return masked + text.slice(from);
}
