/** A text cut before the first stop sequence it holds, and the sequence that cut it. */
export interface StopCut {
  text: string;
  /** The sequence the text was cut at; absent when none occurs. */
  matched?: string;
}

/**
 * Cuts `text` before the earliest occurrence of any of `stops`, the sequence itself left out as
 * vendors do. Where two start at the same place the shorter wins: written token by token, it is
 * complete first. Empty sequences never match.
 */
export function cutAtStopSequence(text: string, stops: readonly string[] | undefined): StopCut {
  let at = -1;
  let matched: string | undefined;
  for (const stop of stops ?? []) {
    if (stop === '') continue;
    const found = text.indexOf(stop);
    if (found < 0) continue;
    if (at < 0 || found < at || (found === at && matched !== undefined && stop.length < matched.length)) {
      at = found;
      matched = stop;
    }
  }
  return matched === undefined ? { text } : { text: text.slice(0, at), matched };
}
