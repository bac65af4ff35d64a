import { loadConfigWithoutArguments } from '../config/load-config.ts';
import { messageWithCauses } from '../platform/error-chain.ts';
import { exitWith } from '../platform/exit-process.ts';
import { CLI, print, readOptions, withGovernance } from './governance-cli.ts';
import { SETTINGS_USAGE, settingsFromOptions } from './settings-options.ts';

const USAGE = `Manage teams (CONTRACT 6.5), as the admin API does.

  npm run teams -- create <team> [settings]
  npm run teams -- update <team> [settings]      changes only what it names
  npm run teams -- list
  npm run teams -- show <team>
  npm run teams -- delete <team> [--force true]   with --force, its apps leave it
  npm run teams -- tokens create|list|revoke <team> [id] [--name <name>]
                                  team admin tokens; a new token is printed once
  npm run teams -- audit [--team <team>] [--limit <n>] [--before <date-time>]
                                  who changed what, newest first

  ${SETTINGS_USAGE}

Uses the same DATA_DIR / DATABASE_URL / CONFIG_FILE settings as the server.`;

async function run(args: string[]): Promise<number> {
  const { positional, options } = readOptions(args);
  const [command, name, id] = positional;
  if (command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  return withGovernance(loadConfigWithoutArguments(), async ({ admin, keys }) => {
    if (command === 'list') print({ data: await admin.listTeams(CLI) });
    else if (command === 'audit')
      print({
        data: await keys.listAudit(CLI, {
          limit: options.limit === undefined ? 100 : Number(options.limit),
          ...(options.team === undefined ? {} : { team: options.team }),
          ...(options.before === undefined ? {} : { before: Date.parse(options.before) }),
        }),
      });
    else if (command === 'tokens') {
      const team = id === undefined ? undefined : id;
      const tokenId = positional[3];
      if (team === undefined)
        throw new Error('usage: npm run teams -- tokens create|list|revoke <team> [id]');
      if (name === 'list') print({ data: await keys.listTeamTokens(CLI, team) });
      else if (name === 'create') {
        print(
          await keys.createTeamToken(CLI, team, options.name === undefined ? {} : { name: options.name }),
        );
        console.error('Store the token now: it is kept only as a hash and cannot be shown again.');
      } else if (name === 'revoke' && tokenId !== undefined) {
        await keys.revokeTeamToken(CLI, team, tokenId);
        console.log(`revoked token ${tokenId} of team ${team}`);
      } else throw new Error('usage: npm run teams -- tokens create|list|revoke <team> [id]');
    } else if (name === undefined) throw new Error(`usage: npm run teams -- ${command} <team>`);
    else if (command === 'show') print(await admin.showTeam(CLI, name));
    else if (command === 'delete') {
      await admin.deleteTeam(CLI, name, options.force === 'true');
      console.log(`deleted team ${name}`);
    } else if (command === 'create')
      print(await admin.createTeam(CLI, { name, ...settingsFromOptions(options) }));
    else if (command === 'update') {
      const current = await admin.showTeam(CLI, name);
      print(await admin.updateTeam(CLI, name, settingsFromOptions(options, current.limits)));
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
