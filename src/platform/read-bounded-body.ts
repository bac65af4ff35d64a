/**
 * A fetch answer's body as UTF-8 text, read up to `limit` bytes and no further: undefined when it
 * is longer (the rest is not read; the body is cancelled). For answers from servers the gateway
 * calls but does not trust to be small (a webhook guard, a vendor's batch API): `text()` and
 * `json()` would hold whatever they send.
 */
export async function readBoundedBody(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
