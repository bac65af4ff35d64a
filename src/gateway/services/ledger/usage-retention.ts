import type { Logger } from '../../../platform/logger.ts';
import type { UsageLedger } from '../../../storage/ports.ts';

const HOUR_MS = 3_600_000;

/**
 * Deletes ledger records older than the retention period, at start-up and then hourly. Several
 * instances may run it at once: the delete is idempotent. Returns a function that stops it.
 */
export function startUsageRetention(
  ledger: UsageLedger,
  retentionDays: number,
  logger: Logger,
  now = () => Date.now(),
): () => void {
  if (retentionDays <= 0) return () => {};
  const sweep = async () => {
    try {
      const deleted = await ledger.deleteBefore(now() - retentionDays * 86_400_000);
      if (deleted > 0) logger.info({ deleted, retentionDays }, 'usage records past retention deleted');
    } catch (error) {
      logger.error({ err: error }, 'usage retention sweep failed; will try again');
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}
