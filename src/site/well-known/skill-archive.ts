import { gzipSync } from 'node:zlib';
import type { SkillFile } from '../content/site-content.ts';

const BLOCK = 512;
const NAME_BYTES = 100;
const PREFIX_BYTES = 155;

/**
 * A skill directory as a gzip-compressed POSIX ustar archive, files at the root (Agent Skills
 * Discovery's `archive` type). Built once at start-up from the bytes that are also served one by
 * one; every header field that could vary (time, owner, mode) is fixed, so the same content
 * always gives the same archive and the same digest.
 */
export function buildSkillArchive(files: readonly SkillFile[]): Buffer {
  const blocks: Buffer[] = [];
  for (const file of files) {
    blocks.push(tarHeader(file.path, file.bytes.length));
    blocks.push(file.bytes, Buffer.alloc(padding(file.bytes.length)));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

function tarHeader(path: string, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const { prefix, name } = splitPath(path);
  header.write(name, 0, 'ascii');
  writeOctal(header, 100, 8, 0o644);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, 0);
  header.write(' '.repeat(8), 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  header.write(prefix, 345, 'ascii');
  // The checksum is the byte sum of the header with its own field read as spaces.
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

function writeOctal(header: Buffer, offset: number, width: number, value: number): void {
  header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'ascii');
}

/** ustar keeps up to 100 bytes of name and 155 of directory prefix, split at a `/`. */
function splitPath(path: string): { prefix: string; name: string } {
  if (path.length <= NAME_BYTES) return { prefix: '', name: path };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (prefix.length <= PREFIX_BYTES && name.length <= NAME_BYTES) return { prefix, name };
  }
  throw new Error(`skill file path too long for a tar archive: ${path}`);
}
