import { APP_NAME_PATTERN } from '../../config/parse-apps.ts';
import { ApiError, type FieldIssue } from '../../platform/errors.ts';
import type { EntitySettings } from '../../storage/governance-ports.ts';
import { checkToolAllowList } from '../domain/mcp-tools.ts';
import { checkAllowList } from '../domain/model-allow-list.ts';

/*
 * The admin API's and the CLI's input, checked beyond its schema: names, allow lists, budgets.
 * Every failure is a 400 `invalid_request` listing each field (never a 500).
 */

/** A day's or a month's budget past this is a typo, not a budget. */
export const MAX_BUDGET_USD = 1_000_000_000;
const MAX_RATE = 1_000_000_000;

export type SettingsPatch = {
  limits?: Record<string, unknown> | null;
  models?: string[] | null;
  mcp?: { allow: string[] } | null;
  metadata?: Record<string, string> | null;
};

const LIMIT_FIELDS: Record<string, 'integer' | 'usd'> = {
  requestsPerMinute: 'integer',
  tokensPerMinute: 'integer',
  concurrentRequests: 'integer',
  dailyBudgetUsd: 'usd',
  monthlyBudgetUsd: 'usd',
};
const END_USER_FIELDS: Record<string, 'integer' | 'usd'> = {
  requestsPerMinute: 'integer',
  dailyBudgetUsd: 'usd',
};

export function assertName(name: unknown, path: string, what: string): asserts name is string {
  if (typeof name !== 'string' || !APP_NAME_PATTERN.test(name))
    throw invalid([
      { path, message: `${what} is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit` },
    ]);
}

export function invalid(issues: FieldIssue[]): ApiError {
  const first = issues[0];
  return new ApiError(
    'invalid_request',
    first === undefined ? 'invalid request' : `${first.path}: ${first.message}`,
    {
      details: issues,
    },
  );
}

/** Applies a patch (a field set to null is removed) to settings, checking every field. */
export function patchSettings(current: EntitySettings, patch: SettingsPatch): EntitySettings {
  const issues: FieldIssue[] = [];
  const next: EntitySettings = { ...current };
  if (patch.limits !== undefined) {
    if (patch.limits === null) delete next.limits;
    else {
      checkLimits(patch.limits, '/limits', LIMIT_FIELDS, issues, true);
      next.limits = patch.limits;
    }
  }
  if (patch.models !== undefined) {
    if (patch.models === null) delete next.models;
    else {
      const problem = checkAllowList(patch.models);
      if (problem !== undefined) issues.push({ path: '/models', message: problem });
      next.models = patch.models;
    }
  }
  if (patch.mcp !== undefined) {
    if (patch.mcp === null) delete next.mcp;
    else {
      const problem = checkToolAllowList(patch.mcp.allow);
      if (problem !== undefined) issues.push({ path: '/mcp/allow', message: problem });
      next.mcp = patch.mcp;
    }
  }
  if (patch.metadata !== undefined) {
    if (patch.metadata === null) delete next.metadata;
    else next.metadata = patch.metadata;
  }
  if (issues.length > 0) throw invalid(issues);
  return next;
}

function checkLimits(
  limits: Record<string, unknown>,
  path: string,
  fields: Record<string, 'integer' | 'usd'>,
  issues: FieldIssue[],
  nested: boolean,
): void {
  for (const [name, value] of Object.entries(limits)) {
    const at = `${path}/${name}`;
    if (nested && name === 'perEndUser') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        issues.push({ path: at, message: 'must be an object' });
      else checkLimits(value as Record<string, unknown>, at, END_USER_FIELDS, issues, false);
      continue;
    }
    const kind = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (kind === undefined) {
      issues.push({ path: at, message: `is not a limit (${Object.keys(fields).join(', ')})` });
    } else if (kind === 'integer') {
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_RATE)
        issues.push({ path: at, message: `must be a whole number from 1 to ${MAX_RATE}` });
    } else if (typeof value !== 'number' || !(value > 0) || value > MAX_BUDGET_USD) {
      issues.push({
        path: at,
        message: `must be a number of US dollars above 0 and at most ${MAX_BUDGET_USD}`,
      });
    }
  }
}
