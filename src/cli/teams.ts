import { loadConfigWithoutArguments } from '../config/load-config.ts';
import { messageWithCauses } from '../platform/error-chain.ts';
import { exitWith } from '../platform/exit-process.ts';
import { CLI, print, readOptions, withGovernance } from './governance-cli.ts';

const USAGE = `Manage teams (CONTRACT 6.5), as the admin API does.

  npm run teams -- create <team> [--models <pattern,...>] [--daily-budget <usd>] [--monthly-budget <usd>]
  npm run teams -- list
  npm run teams -- show <team>
  npm run teams -- delete <team> [--force true]   with --force, its apps leave it

Uses the same DATA_DIR / DATABASE_URL / CONFIG_FILE settings as the server.`;

async function run(args: string[]): Promise<number> {
  const { positional, options } = readOptions(args);
  const [command, name] = positional;
  if (command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  return withGovernance(loadConfigWithoutArguments(), async ({ admin }) => {
    if (command === 'list') print({ data: await admin.listTeams(CLI) });
    else if (name === undefined) throw new Error(`usage: npm run teams -- ${command} <team>`);
    else if (command === 'show') print(await admin.showTeam(CLI, name));
    else if (command === 'delete') {
      await admin.deleteTeam(CLI, name, options.force === 'true');
      console.log(`deleted team ${name}`);
    } else if (command === 'create') {
      const limits: Record<string, number> = {};
      if (options['daily-budget'] !== undefined) limits.dailyBudgetUsd = Number(options['daily-budget']);
      if (options['monthly-budget'] !== undefined)
        limits.monthlyBudgetUsd = Number(options['monthly-budget']);
      print(
        await admin.createTeam(CLI, {
          name,
          ...(options.models === undefined ? {} : { models: options.models.split(',') }),
          ...(Object.keys(limits).length === 0 ? {} : { limits }),
        }),
      );
    } else throw new Error(`unknown command '${command}'\n\n${USAGE}`);
  });
}

run(process.argv.slice(2)).then(
  (code) => exitWith(code),
  (error: unknown) => {
    console.error(messageWithCauses(error));
    exitWith(1);
  },
);
