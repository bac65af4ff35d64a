/**
 * `bytes` as a Buffer that is the whole of its own ArrayBuffer, which a postMessage can move to
 * another thread rather than copy: `bytes` itself when it already is (a large body or a large
 * string's bytes), else a copy. A small Buffer is a view into Node's shared pool, which can be
 * neither moved nor given away.
 */
export function ownedBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(copy);
  return copy;
}
