/**
 * Compares two strings in time that depends only on their lengths, never on where they differ:
 * for digests of secrets, which always have the same length. `crypto.timingSafeEqual` does the
 * same for Buffers, but making the Buffers costs more than the comparison here.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
