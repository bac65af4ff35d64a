import { JsonThread } from '../../src/platform/json-thread/json-thread.ts';

/** A JSON thread's worker that dies on its first request (dying-json-worker.ts). */
export const DYING_JSON_WORKER_URL = new URL('./dying-json-worker.ts', import.meta.url);

/** A real JsonThread that counts the bodies it was given to parse and the values to write. */
export class CountingJsonThread extends JsonThread {
  parsed = 0;
  written = 0;

  override parse(bytes: Buffer): Promise<unknown> {
    this.parsed++;
    return super.parse(bytes);
  }

  override stringify(value: unknown): Promise<Buffer> {
    this.written++;
    return super.stringify(value);
  }
}
