/** The admin API as the page reads it: same-origin, with the session cookie, nothing computed here. */

export type Query = Record<string, string | undefined>;

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const response = await fetch(`/admin/api/${path}?${params}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  });
  // The session ended (expired, or signed out in another tab): back to the sign-in form.
  if (response.status === 401) {
    window.location.assign('/dashboard');
    throw new Error('signed out');
  }
  const body = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

export interface TotalsRow {
  day?: string;
  hour?: string;
  app?: string;
  provider?: string | null;
  model?: string | null;
  operation?: string;
  /** The app's team (null: an app in no team), when grouped by team. */
  team?: string | null;
  /** The person behind the requests (null: none named), when grouped by end user. */
  endUser?: string | null;
  /** An MCP tool call's `server__tool`; null for other requests. */
  tool?: string | null;
  requests: number;
  errors: number;
  errorRate: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** Prompt-cache reads and writes, parts of tokensIn. */
  tokensInCacheRead: number;
  tokensInCacheWrite: number;
  /** Answers from the response cache, their share of the requests, and what they saved. */
  cacheHits: number;
  cacheHitRate: number;
  costSavedUsd: number;
}

export interface UsageAnswer {
  from: string;
  to: string;
  totals: TotalsRow;
  rows: TotalsRow[];
}

export interface Percentiles {
  requests: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

export interface LatencyAnswer {
  from: string;
  to: string;
  overall: Percentiles;
  rows: (Percentiles & { day?: string; hour?: string })[];
}

export interface RefusalAnswer {
  from: string;
  to: string;
  total: number;
  rows: { day?: string; hour?: string; app?: string; limit?: string; refusals: number }[];
}

export interface FailureAnswer {
  from: string;
  to: string;
  failures: {
    id: string;
    requestId: string;
    app: string;
    operation: string;
    provider: string | null;
    model: string | null;
    status: number;
    errorCode: string | null;
    latencyMs: number;
    createdAt: string;
  }[];
}

export interface AppsAnswer {
  apps: {
    name: string;
    status: string;
    limits: Record<string, number>;
    today: { requests: number; errors: number; costUsd: number };
    thisMonth: { requests: number; errors: number; costUsd: number };
  }[];
}

export interface BudgetsAnswer {
  budgets: {
    /** `endUser`: one person's use of an app's or a team's per-end-user daily budget. */
    scope: 'team' | 'app' | 'endUser';
    name: string;
    team: string | null;
    /** For `endUser`: the app whose budget it is; null for a team's. */
    app?: string | null;
    window: 'day' | 'month';
    limitUsd: number;
    spentUsd: number;
    /** spentUsd / limitUsd, to 4 decimals. */
    used: number;
    resetsAt: string;
  }[];
}

export interface GuardrailsAnswer {
  from: string;
  to: string;
  rows: { guard: string; phase: string; action: string; requests: number }[];
}
