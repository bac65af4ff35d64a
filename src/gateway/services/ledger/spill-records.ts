import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../../platform/logger.ts';
import type { UsageRecord } from '../../../storage/ports.ts';

/**
 * Appends usage records the ledger could not take to `spillDir/usage-spill-<time>.jsonl`, one
 * JSON record a line. Without a spill directory (an in-memory store), or when the file cannot be
 * written, the records go into the error log line itself: the last copy left, never silence.
 */
export function spillRecords(
  records: readonly UsageRecord[],
  spillDir: string | undefined,
  logger: Logger,
): void {
  if (spillDir !== undefined) {
    const file = join(spillDir, `usage-spill-${Date.now()}.jsonl`);
    try {
      mkdirSync(spillDir, { recursive: true });
      appendFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
      logger.error(
        { file, records: records.length },
        'usage ledger unavailable at shutdown; records spilled to file',
      );
      return;
    } catch (error) {
      logger.error(
        { err: error, file, records },
        'usage records could not be spilled to file; they are in this line',
      );
      return;
    }
  }
  logger.error(
    { records },
    'usage records could not be written and no spill directory is set; they are in this line',
  );
}
