/** How numbers and times are shown: formatting only, never arithmetic on the API's figures. */

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

export const formatCount = (value: number): string => integer.format(value);
export const formatUsd = (value: number): string =>
  `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`;
export const formatPercent = (rate: number): string => `${(rate * 100).toFixed(2)}%`;
export const formatMs = (value: number | null): string =>
  value === null ? '–' : `${decimal.format(value)} ms`;

/** A bucket label: `2026-03-02` stays, an hour shows as `03-02 10:00`. */
export function formatBucket(value: string): string {
  return value.length > 10 ? `${value.slice(5, 10)} ${value.slice(11, 16)}` : value;
}

export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
