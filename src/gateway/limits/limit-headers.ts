import type { AppLimits } from '../../config/config-types.ts';
import { minuteWindow } from './limit-windows.ts';

/** Whose header names an answer uses: OpenAI's (native API, OpenAI doors) or Anthropic's. */
export type LimitConvention = 'openai' | 'anthropic';

/** A per-minute counter as the limiter last saw it: its limit, what is used, when it resets (epoch ms). */
export interface WindowState {
  limit: number;
  used: number;
  resetAt: number;
}

export interface LimitState {
  requests?: WindowState | undefined;
  tokens?: WindowState | undefined;
}

/**
 * A duration in OpenAI's form, as its `x-ratelimit-reset-*` headers write it: `1s`, `59s`,
 * `6m0s`, `1h2m3s`; below a second, `250ms`.
 */
export function openAIDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const total = Math.ceil(ms / 1_000);
  const hours = Math.floor(total / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** An instant in RFC 3339 at whole seconds, rounded up (the reset is not before it). */
function rfc3339(ms: number): string {
  return new Date(Math.ceil(ms / 1_000) * 1_000).toISOString().replace('.000Z', 'Z');
}

type Measure = 'requests' | 'tokens';

interface TripleNames {
  limit: string;
  remaining: string;
  reset: string;
}

function tripleNames(convention: LimitConvention, measure: Measure): TripleNames {
  return convention === 'anthropic'
    ? {
        limit: `anthropic-ratelimit-${measure}-limit`,
        remaining: `anthropic-ratelimit-${measure}-remaining`,
        reset: `anthropic-ratelimit-${measure}-reset`,
      }
    : {
        limit: `x-ratelimit-limit-${measure}`,
        remaining: `x-ratelimit-remaining-${measure}`,
        reset: `x-ratelimit-reset-${measure}`,
      };
}

/**
 * The names, written once: a literal of computed names (`{ [name]: value }`) has V8 define each
 * through its runtime, about 1,400 instructions a header on every limited answer.
 */
const TRIPLE_NAMES: Record<LimitConvention, Record<Measure, TripleNames>> = {
  openai: { requests: tripleNames('openai', 'requests'), tokens: tripleNames('openai', 'tokens') },
  anthropic: { requests: tripleNames('anthropic', 'requests'), tokens: tripleNames('anthropic', 'tokens') },
};

function writeTriple(
  headers: Record<string, string>,
  convention: LimitConvention,
  measure: Measure,
  window: WindowState,
  now: number,
): void {
  const names = TRIPLE_NAMES[convention][measure];
  headers[names.limit] = String(window.limit);
  headers[names.remaining] = String(Math.max(0, window.limit - window.used));
  headers[names.reset] =
    convention === 'anthropic' ? rfc3339(window.resetAt) : openAIDuration(window.resetAt - now);
}

/**
 * The headers that say an app's limit state on an answer (contract 5.8, 5.9): the requests triple
 * where a requests-per-minute limit is set and the tokens triple where a tokens-per-minute limit
 * is, in the door's convention, and the IETF `RateLimit-Policy` and `RateLimit` fields for the
 * requests policy. The counts are the shared counters' (Redis, when set), so they hold across
 * instances. A counter the limiter did not reach (a refusal before it) is read as used up.
 */
export function limitHeaders(
  limits: AppLimits,
  state: LimitState,
  now: number,
  convention: LimitConvention,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const minute = minuteWindow(now).resetAt;
  if (limits.requestsPerMinute !== undefined) {
    const requests = state.requests ?? {
      limit: limits.requestsPerMinute,
      used: limits.requestsPerMinute,
      resetAt: minute,
    };
    writeTriple(headers, convention, 'requests', requests, now);
    const reset = Math.max(0, Math.ceil((requests.resetAt - now) / 1000));
    headers['ratelimit-policy'] = `"requests";q=${limits.requestsPerMinute};w=60`;
    headers.ratelimit = `"requests";r=${Math.max(0, requests.limit - requests.used)};t=${reset}`;
  }
  if (limits.tokensPerMinute !== undefined) {
    const tokens = state.tokens ?? {
      limit: limits.tokensPerMinute,
      used: limits.tokensPerMinute,
      resetAt: minute,
    };
    writeTriple(headers, convention, 'tokens', tokens, now);
  }
  return headers;
}
