import type { SettingsPatch } from '../gateway/governance/settings-input.ts';

/** The CLI's options for a team's or an app's settings, as the admin API's body fields. */
export const SETTINGS_USAGE = `settings (create and update; \`none\` clears a list or all limits):
    --models <pattern,...>        model allow list (slot/model patterns, * a wildcard)
    --mcp <server/tool,...>       MCP allow list (server/* for a whole server)
    --rpm <n> --tpm <n> --concurrent <n>
    --daily-budget <usd> --monthly-budget <usd>
    --end-user-rpm <n> --end-user-daily-budget <usd>   limits of each person
    --limits none                 removes every limit
    --metadata <key=value,...>`;

const LIMIT_OPTIONS: Record<string, string> = {
  rpm: 'requestsPerMinute',
  tpm: 'tokensPerMinute',
  concurrent: 'concurrentRequests',
  'daily-budget': 'dailyBudgetUsd',
  'monthly-budget': 'monthlyBudgetUsd',
};
const END_USER_OPTIONS: Record<string, string> = {
  'end-user-rpm': 'requestsPerMinute',
  'end-user-daily-budget': 'dailyBudgetUsd',
};

const list = (value: string): string[] | null => (value === 'none' ? null : value.split(','));

/**
 * The settings patch the options describe. Limits given are laid over `currentLimits` (an update
 * changes the limits it names and keeps the others, as a person expects of a flag); numbers are
 * passed on as read, so a bad one gets the admin API's own message.
 */
export function settingsFromOptions(
  options: Record<string, string>,
  currentLimits: Record<string, unknown> = {},
): SettingsPatch {
  const patch: SettingsPatch = {};
  if (options.models !== undefined) patch.models = list(options.models);
  if (options.mcp !== undefined) {
    const allow = list(options.mcp);
    patch.mcp = allow === null ? null : { allow };
  }
  if (options.metadata !== undefined)
    patch.metadata =
      options.metadata === 'none'
        ? null
        : Object.fromEntries(
            options.metadata.split(',').map((pair) => {
              const at = pair.indexOf('=');
              return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
            }),
          );
  if (options.limits === 'none') {
    patch.limits = null;
    return patch;
  }
  const limits: Record<string, unknown> = { ...currentLimits };
  let changed = false;
  for (const [option, field] of Object.entries(LIMIT_OPTIONS))
    if (options[option] !== undefined) {
      limits[field] = Number(options[option]);
      changed = true;
    }
  const perEndUser: Record<string, unknown> = { ...(limits.perEndUser as Record<string, unknown>) };
  for (const [option, field] of Object.entries(END_USER_OPTIONS))
    if (options[option] !== undefined) {
      perEndUser[field] = Number(options[option]);
      limits.perEndUser = perEndUser;
      changed = true;
    }
  if (changed) patch.limits = limits;
  return patch;
}
