import { loadConfigWithoutArguments } from '../config/load-config.ts';
import { AppAdmin, AppAdminError } from '../gateway/auth/app-admin.ts';
import { systemClock } from '../platform/clock.ts';
import { messageWithCauses } from '../platform/error-chain.ts';
import { exitWith } from '../platform/exit-process.ts';
import { openStorage } from '../storage/open-storage.ts';
import { AppExistsError } from '../storage/ports.ts';
import { CLI, print, readOptions, withGovernance } from './governance-cli.ts';
import { SETTINGS_USAGE, settingsFromOptions } from './settings-options.ts';

const USAGE = `Manage gateway apps (credentials for x-gateway-app / x-gateway-secret).

  npm run apps -- create <name> [--team <team>] [settings]
                                  create an app; prints its secret once
  npm run apps -- update <name> [--team <team>|none] [settings]
                                  changes only what it names (limits are laid over the app's own)
  npm run apps -- show <name>     an app's team, limits and lists
  npm run apps -- keys create|list|revoke|rotate <app> [id] [--name <name>] [--expires-at <date-time>] [--grace <seconds>]
                                  an app's keys (up to 20); a new key's secret is printed once
  npm run apps -- list            list apps and their state (never secrets)
  npm run apps -- rotate <name>   replace an app's secret; prints the new one once
  npm run apps -- revoke <name>   revoke an app; its secret stops working

  ${SETTINGS_USAGE}

Uses the same DATA_DIR / DATABASE_URL / CONFIG_FILE settings as the server. A running
gateway sees a change within 5 seconds.`;

function formatTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

async function run(args: string[]): Promise<number> {
  const { positional, options } = readOptions(args);
  if (positional[0] === 'keys') return runKeys(positional.slice(1), options);
  const governed = positional[0] === 'update' || positional[0] === 'show';
  if (governed || (positional[0] === 'create' && Object.keys(options).length > 0))
    return withGovernance(loadConfigWithoutArguments(), async ({ admin }) => {
      const [command, name] = positional;
      if (name === undefined) throw new Error(`usage: npm run apps -- ${command} <name>`);
      if (command === 'show') return print(await admin.showApp(CLI, name));
      const team = options.team === undefined ? {} : { team: options.team === 'none' ? null : options.team };
      if (command === 'update') {
        const current = await admin.showApp(CLI, name);
        return print(
          await admin.updateApp(CLI, name, {
            ...team,
            ...settingsFromOptions(options, current.limits ?? {}),
          }),
        );
      }
      print(await admin.createApp(CLI, { name, ...team, ...settingsFromOptions(options) }));
      // On stderr: stdout stays one JSON document for jq and scripts.
      console.error('Store the secret now: it is kept only as a hash and cannot be shown again.');
    });
  const [command, name] = positional;
  if (command === undefined || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  const storage = await openStorage(loadConfigWithoutArguments());
  const admin = new AppAdmin(storage.apps, systemClock);
  try {
    switch (command) {
      case 'create':
      case 'rotate': {
        if (name === undefined) throw new AppAdminError(`usage: npm run apps -- ${command} <name>`);
        const issued = command === 'create' ? await admin.create(name) : await admin.rotate(name);
        console.log(
          `app:    ${issued.name}\nsecret: ${issued.secret}\n\nStore the secret now: it is kept only as a hash and cannot be shown again.`,
        );
        return 0;
      }
      case 'revoke':
        if (name === undefined) throw new AppAdminError('usage: npm run apps -- revoke <name>');
        await admin.revoke(name);
        console.log(`revoked ${name}`);
        return 0;
      case 'list': {
        const apps = await admin.list();
        if (apps.length === 0) console.log('no apps');
        for (const app of apps) {
          const state = app.revokedAt === null ? 'active' : 'revoked';
          console.log(
            `${app.name}\t${state}\tcreated ${formatTime(app.createdAt)}\trotated ${formatTime(app.rotatedAt)}`,
          );
        }
        return 0;
      }
      default:
        console.error(`unknown command '${command}'\n\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    if (error instanceof AppAdminError || error instanceof AppExistsError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await storage.close();
  }
}

/** `keys create|list|revoke|rotate <app> [id]`, as the admin API's key routes. */
function runKeys(args: string[], options: Record<string, string>): Promise<number> {
  const [command, app, id] = args;
  return withGovernance(loadConfigWithoutArguments(), async ({ keys }) => {
    if (app === undefined)
      throw new Error('usage: npm run apps -- keys create|list|revoke|rotate <app> [id]');
    if (command === 'list') print({ data: await keys.listKeys(CLI, app) });
    else if (command === 'create')
      print(
        await keys.createKey(CLI, app, {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options['expires-at'] === undefined ? {} : { expiresAt: options['expires-at'] }),
        }),
      );
    else if (id === undefined) throw new Error(`usage: npm run apps -- keys ${command} <app> <id>`);
    else if (command === 'revoke') {
      await keys.revokeKey(CLI, app, id);
      console.log(`revoked key ${id} of ${app}`);
    } else if (command === 'rotate')
      print(
        await keys.rotateKey(
          CLI,
          app,
          id,
          options.grace === undefined ? {} : { gracePeriodSeconds: Number(options.grace) },
        ),
      );
    else throw new Error(`unknown keys command '${command}'`);
  });
}

run(process.argv.slice(2)).then(
  (code) => exitWith(code),
  (error: unknown) => {
    console.error(messageWithCauses(error));
    exitWith(1);
  },
);
