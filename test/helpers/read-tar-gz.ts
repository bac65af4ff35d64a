import { gunzipSync } from 'node:zlib';

/**
 * The regular files of a gzip-compressed ustar archive, in archive order. A reader written for the
 * tests, so that what the server builds is checked by code that does not share its assumptions.
 */
export function readTarGz(archive: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(archive);
  const files = new Map<string, Buffer>();
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('ascii')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim(), 8);
    const prefix = field(345, 155);
    const path = prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`;
    if (field(156, 1) === '0' || field(156, 1) === '') {
      files.set(path, Buffer.from(tar.subarray(offset + 512, offset + 512 + size)));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
