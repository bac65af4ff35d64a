import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * What the newsletter keeps of, and counts per, a client: a rate-limit key, a keyed hash of the
 * address for the consent record, and a trimmed User-Agent.
 */
export const MAX_USER_AGENT_LENGTH = 256;

/**
 * The unit a signup limit counts: an IPv4 address, or an IPv6 /64 (one subscriber line usually gets
 * a whole /64, so counting single IPv6 addresses would let one client rotate past the limit).
 */
export function toRateLimitKey(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((part) => Number.parseInt(part, 16).toString(16));
}

/**
 * HMAC-SHA256 of the client address under a server-side key: consent records can show that two
 * signups came from one address without storing the address. A plain hash would not do: all
 * IPv4 addresses can be hashed in minutes and looked up.
 */
export function hashClientAddress(ip: string, key: string): string {
  return createHmac('sha256', key).update(ip, 'utf8').digest('base64url');
}

export function trimUserAgent(userAgent: string | string[] | undefined): string | null {
  if (typeof userAgent !== 'string') return null;
  const clean = userAgent.replace(/\p{Cc}/gu, ' ').trim();
  return clean === '' ? null : clean.slice(0, MAX_USER_AGENT_LENGTH);
}
