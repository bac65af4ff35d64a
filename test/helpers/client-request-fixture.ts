import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { dirname, join } from 'node:path';

/**
 * What a client sent, kept as a fixture (test/fixtures/clients/): method, path, the headers
 * sorted by name, and the body parsed from its raw bytes, with secrets and machine-specific
 * values replaced by placeholders so that the files hold no key and differ only when the client
 * changed what it sends.
 */
export interface ClientRequestFixture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export const CLIENT_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'clients');

/** Headers whose values are credentials or vary by run and machine. */
const SCRUBBED_HEADERS: Record<string, string> = {
  authorization: '<redacted>',
  'x-api-key': '<redacted>',
  host: '<host>',
  'content-length': '<length>',
};

export interface Scrubber {
  /** Literal strings (temporary directories, keys, ids) and what replaces each. */
  replacements: [string, string][];
  /** Patterns (UUIDs, a port) replaced everywhere after the literals. */
  patterns?: [RegExp, string][];
}

function scrubText(text: string, scrubber: Scrubber): string {
  let out = text;
  // Longest first, so that a directory is replaced before a prefix of it.
  const literals = [...scrubber.replacements].sort((a, b) => b[0].length - a[0].length);
  for (const [from, to] of literals) if (from !== '') out = out.replaceAll(from, to);
  for (const [pattern, to] of scrubber.patterns ?? []) out = out.replace(pattern, to);
  return out;
}

export function toClientRequestFixture(
  request: { method: string; path: string; headers: IncomingHttpHeaders; raw: Buffer },
  scrubber: Scrubber,
): ClientRequestFixture {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(request.headers).sort()) {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    headers[name] = SCRUBBED_HEADERS[name] ?? scrubText(text, scrubber);
  }
  const rawText = scrubText(request.raw.toString('utf8'), scrubber);
  let body: unknown;
  try {
    body = rawText === '' ? null : JSON.parse(rawText);
  } catch {
    body = rawText;
  }
  return { method: request.method, path: scrubText(request.path, scrubber), headers, body };
}

/** Writes a fixture file (JSON, two-space indented) under test/fixtures/clients/. */
export function writeClientFixture(relativePath: string, value: unknown): void {
  const path = join(CLIENT_FIXTURES, relativePath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export function readClientFixture<T = any>(relativePath: string): T {
  return JSON.parse(readFileSync(join(CLIENT_FIXTURES, relativePath), 'utf8')) as T;
}

/** UUIDs (session, device, request ids): random per run. */
export const UUID_PATTERN: [RegExp, string] = [
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  '<uuid>',
];
