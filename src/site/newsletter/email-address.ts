/**
 * E-mail address rules of the newsletter. The grammar is the HTML spec's "valid e-mail address"
 * (what `<input type="email">` accepts), so a browser form and this API agree; on top of it the
 * SMTP length limits (RFC 5321: 254 in all, 64 before the @), a domain with at least one dot, and
 * a last label that is not all digits (a dotted IPv4 address is not a mail domain).
 *
 * The grammar is ASCII only: look-alike letters, full-width @, quoted local parts, IP literals,
 * control characters (so CR/LF header injection) and trailing dots are all refused by it.
 * Internationalised domains must come in their ASCII (punycode) form, as browsers send them.
 */
const WHATWG_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export const MAX_ADDRESS_LENGTH = 254;
export const MAX_LOCAL_PART_LENGTH = 64;

export type EmailParseResult = { ok: true; address: string } | { ok: false; message: string };

/** Validates and normalises an address: trimmed, the domain lower-cased, the local part as given. */
export function parseEmailAddress(input: unknown): EmailParseResult {
  if (input === undefined || input === null) return { ok: false, message: 'email is required' };
  if (typeof input !== 'string') return { ok: false, message: 'email must be a string' };
  const value = input.trim();
  if (value === '') return { ok: false, message: 'email is required' };
  // Length first: a huge string is refused without running the grammar over it.
  if (value.length > MAX_ADDRESS_LENGTH) {
    return { ok: false, message: `email must be at most ${MAX_ADDRESS_LENGTH} characters` };
  }
  if (!WHATWG_EMAIL.test(value)) return { ok: false, message: 'email is not a valid address' };
  const at = value.indexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1).toLowerCase();
  if (local.length > MAX_LOCAL_PART_LENGTH) {
    return {
      ok: false,
      message: `the part of email before the @ must be at most ${MAX_LOCAL_PART_LENGTH} characters`,
    };
  }
  const labels = domain.split('.');
  if (labels.length < 2) return { ok: false, message: 'the domain of email must contain a dot' };
  if (/^\d+$/.test(labels.at(-1) ?? '')) return { ok: false, message: 'the domain of email is not a name' };
  return { ok: true, address: `${local}@${domain}` };
}

/** `j***@example.com`: enough to tell log lines apart without writing the address down. */
export function maskEmailAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '***';
  return `${address.slice(0, 1)}***${address.slice(at)}`;
}
