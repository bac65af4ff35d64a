import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { newTimeOrderedId } from '../../platform/ids.ts';
import type { BatchFileRecord } from '../../storage/batch-store.ts';
import type { BatchDeps } from './batch-deps.ts';
import { BatchLineReader } from './batch-lines.ts';

/** Bytes per stored chunk: a download reads a few at a time, an upload holds one. */
export const CHUNK_BYTES = 1024 * 1024;

const invalid = (path: string, message: string) =>
  new ApiError('invalid_request', message, { details: [{ path, message }] });

const malformed = (error: unknown) =>
  invalid(
    '',
    `malformed multipart body: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}`,
  );

/**
 * POST /v1/files: the multipart body read as it arrives (never whole in memory), its `file` part
 * checked line by line (batch-lines.ts) and written to the database in 1 MiB chunks, bounded by
 * `batches.maxFileBytes` rather than MAX_BODY_BYTES. A body that is not multipart, a broken one,
 * a missing or extra part, a purpose other than `batch`, a file past the bound or a bad line is
 * refused in the envelope, naming the part or the line; what was stored of it is deleted.
 */
export async function receiveUpload(request: FastifyRequest, deps: BatchDeps): Promise<BatchFileRecord> {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType))
    throw new ApiError('unsupported_media_type', 'POST /v1/files takes multipart/form-data with a boundary');
  const now = deps.clock.now();
  const file: BatchFileRecord = {
    id: newTimeOrderedId('file'),
    app: request.appName,
    purpose: 'batch',
    filename: 'upload.jsonl',
    bytes: 0,
    lines: 0,
    status: 'uploading',
    batchId: null,
    createdAt: now,
    expiresAt: now + deps.settings.retentionDays * 86_400_000,
  };
  let stored = false;
  try {
    const { purpose, received } = await readParts(request.raw, contentType, file.app, deps, (filename) => {
      file.filename = filename.slice(0, 255) || file.filename;
      stored = true;
      return deps.store.createFile(file).then(() => file.id);
    });
    if (received === undefined) throw invalid('/file', "part 'file' is missing");
    if (purpose !== 'batch') throw invalid('/purpose', "part 'purpose' must be 'batch'");
    await deps.store.finishFile(file.id, received.bytes, received.lines);
    return { ...file, bytes: received.bytes, lines: received.lines, status: 'processed' };
  } catch (error) {
    if (stored) await deps.store.deleteFile(file.app, file.id).catch(() => {});
    throw error;
  }
}

interface Received {
  bytes: number;
  lines: number;
}

/** Runs the body through busboy; the file part is stored as it comes (`open` makes its row). */
async function readParts(
  body: Readable,
  contentType: string,
  app: string,
  deps: BatchDeps,
  open: (filename: string) => Promise<string>,
): Promise<{ purpose: string | undefined; received: Received | undefined }> {
  const max = deps.settings.maxFileBytes;
  let purpose: string | undefined;
  let work: Promise<Received> | undefined;
  let fault: ApiError | undefined;
  const busboy = Busboy({
    headers: { 'content-type': contentType },
    limits: {
      files: 1,
      fields: 4,
      parts: 5,
      fieldSize: 1024,
      fieldNameSize: 100,
      headerPairs: 20,
      fileSize: max + 1,
    },
  });
  busboy.on('field', (name, value) => {
    if (name === 'purpose') purpose = value;
    else
      fault ??= invalid(
        `/${name.slice(0, 50)}`,
        `unknown part '${name.slice(0, 50)}' (expected 'file' and 'purpose')`,
      );
  });
  busboy.on('file', (name, stream, filename) => {
    if (name !== 'file' || work !== undefined) {
      fault ??= invalid(
        `/${name.slice(0, 50)}`,
        `unexpected file part '${name.slice(0, 50)}' (one part 'file' is expected)`,
      );
      stream.resume();
      return;
    }
    // An error of the part (the body ending inside it) may come while its row is still being
    // made: heard here at once, it is read again from the stream by storeFile's loop.
    stream.on('error', () => {});
    work = storeFile(stream, filename, app, deps, open);
    // Its failure is read once the body has ended.
    work.catch(() => {});
  });
  for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const)
    busboy.on(limit, () => {
      fault ??= invalid('', 'too many parts (expected one file and its purpose)');
    });
  try {
    await pipeline(body, busboy);
  } catch (error) {
    throw invalid(
      '',
      `malformed multipart body: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}`,
    );
  }
  const received = work === undefined ? undefined : await work;
  if (fault !== undefined) throw fault;
  return { purpose, received };
}

async function storeFile(
  stream: BusboyFileStream,
  filename: string,
  app: string,
  deps: BatchDeps,
  open: (filename: string) => Promise<string>,
): Promise<Received> {
  const max = deps.settings.maxFileBytes;
  const reader = new BatchLineReader({
    app,
    maxLines: deps.settings.maxRequestsPerFile,
    modelAllowed: deps.modelAllowed,
    pointer: '/file',
  });
  const id = await open(filename);
  let bytes = 0;
  let seq = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The part is read to its end whatever happens: leaving it unread would stall the body, and
  // leaving the loop would destroy the part under the parser. The first fault is thrown after.
  let fault: unknown;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (fault !== undefined) continue;
      try {
        bytes += chunk.length;
        if (bytes > max)
          throw new ApiError('payload_too_large', `file is larger than batches.maxFileBytes (${max} bytes)`, {
            details: [{ path: '/file', message: `larger than batches.maxFileBytes (${max} bytes)` }],
          });
        reader.push(chunk);
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) {
          await deps.store.appendChunk(id, seq++, Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
      } catch (error) {
        fault = error;
      }
    }
  } catch (error) {
    // The part itself broke (the body ended inside it).
    fault ??= malformed(error);
  }
  if (fault !== undefined) throw fault;
  reader.end();
  if (pendingBytes > 0) await deps.store.appendChunk(id, seq, Buffer.concat(pending));
  return { bytes, lines: reader.requests };
}
