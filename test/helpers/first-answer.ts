import { connect } from 'node:net';
import { parseAnswer, type RawAnswer } from './raw-http.ts';

/**
 * Writes bytes to a server as they are, with no HTTP client tidying them, and resolves with the first
 * answer as soon as it is complete (a keep-alive server may hold the connection open after it), or
 * with what arrived when the server closed. Rejects when neither happens within `timeoutMs`.
 */
export function readFirstAnswer(port: number, bytes: Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks).toString('latin1')), error, ms: Date.now() - started });
    };
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isComplete(Buffer.concat(chunks), bytes.subarray(0, 5).toString('latin1') === 'HEAD ')) finish();
    });
    socket.on('close', finish);
    socket.write(bytes, () => {});
  });
}

/** An answer to HEAD ends with its headers: its content-length describes a body it does not send. */
function isComplete(bytes: Buffer, headOnly: boolean): boolean {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const { status, headers } = parseAnswer(bytes.subarray(0, end + 4).toString('latin1'));
  // 1xx, 204 and 304 answers have no body whatever their headers say.
  if (headOnly || status < 200 || status === 204 || status === 304) return true;
  if (headers['transfer-encoding'] === 'chunked')
    return bytes.subarray(-5).toString('latin1') === '0\r\n\r\n';
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && bytes.length - end - 4 >= length;
}
