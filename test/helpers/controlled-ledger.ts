import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UsageLedger, UsageRecord } from '../../src/storage/ports.ts';

interface Write {
  ids: string[];
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * A usage ledger whose writes wait until the test settles them, one by one, by hand: commit,
 * fail, or commit and then fail (a connection lost after COMMIT). It keeps what was committed in
 * order and never skips a known id, so a record written twice shows up twice.
 */
export class ControlledLedger implements UsageLedger {
  readonly committed: string[] = [];
  readonly writes: Write[] = [];
  /** Most writes ever in flight at once: the recorder must never have two. */
  maxInFlight = 0;
  calls = 0;

  appendBatch(records: readonly UsageRecord[]): Promise<void> {
    this.calls++;
    const ids = records.map((r) => r.id);
    return new Promise((resolve, reject) => {
      this.writes.push({ ids, resolve, reject });
      this.maxInFlight = Math.max(this.maxInFlight, this.writes.length);
    });
  }

  /** Ids of the oldest write in flight, or undefined. */
  get front(): string[] | undefined {
    return this.writes[0]?.ids;
  }

  succeed(): void {
    const write = this.#next();
    this.committed.push(...write.ids);
    write.resolve();
  }

  fail(): void {
    this.#next().reject(new Error('ledger down'));
  }

  commitThenFail(): void {
    const write = this.#next();
    this.committed.push(...write.ids);
    write.reject(new Error('connection lost after commit'));
  }

  #next(): Write {
    const write = this.writes.shift();
    if (write === undefined) throw new Error('no write in flight');
    return write;
  }

  async readRecords(): Promise<never> {
    throw new Error('not used by the recorder');
  }
  async totals(): Promise<never> {
    throw new Error('not used by the recorder');
  }
  async deleteBefore(): Promise<never> {
    throw new Error('not used by the recorder');
  }
}

/** Lets promise callbacks and setImmediate callbacks (the recorder's batch trigger) run. */
export async function settle(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Ids in every spill file of `dir`, in file name and line order. */
export function readSpilled(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('usage-spill-'))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as UsageRecord).id),
    );
}

export function ids(prefix: string, from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);
}
