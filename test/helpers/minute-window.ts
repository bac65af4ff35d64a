/**
 * Per-minute limits count in fixed windows aligned to the UTC minute. A test that sends more
 * requests than such a limit and counts the refusals must send them all inside one window, or
 * the second window's fresh count lets more through (a rare failure, at a minute's turn). When
 * fewer than `marginMs` are left of this window, this waits for the next one.
 */
export async function startInsideOneMinute(marginMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 10));
}
