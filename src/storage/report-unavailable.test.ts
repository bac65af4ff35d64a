import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DependencyUnavailableError } from '../platform/dependency-unavailable.ts';
import { toApiError } from '../platform/error-handler.ts';
import { openSqliteStorage } from './embedded/sqlite-storage.ts';
import type { AppRecord, AppStore, Storage } from './ports.ts';
import { reportUnavailable } from './report-unavailable.ts';

class Down extends Error {}

/** An app store whose reads fail as its flag says; a class with private state, as the adapters are. */
class FlakyApps implements AppStore {
  readonly #apps: AppRecord[] = [
    { name: 'a', secretHash: 'h', createdAt: 1, rotatedAt: null, revokedAt: null },
  ];
  failure: unknown;

  async findApp(name: string) {
    if (this.failure !== undefined) throw this.failure;
    return this.#apps.find((app) => app.name === name);
  }
  async listApps() {
    if (this.failure !== undefined) throw this.failure;
    return [...this.#apps];
  }
  async createApp() {}
  async setSecret() {
    return true;
  }
  async replaceSecretHash() {
    return false;
  }
  async revokeApp() {
    return false;
  }
}

function storageWith(apps: AppStore): Storage {
  const base = openSqliteStorage(':memory:');
  return { ...base, apps };
}

describe('reportUnavailable', () => {
  it('answers as the port does while it works', async () => {
    const apps = new FlakyApps();
    const storage = reportUnavailable(storageWith(apps), (error) => error instanceof Down);
    assert.equal((await storage.apps.findApp('a'))?.name, 'a');
    assert.deepEqual(
      (await storage.apps.listApps()).map((app) => app.name),
      ['a'],
    );
    assert.equal(await storage.apps.setSecret('a', 'h', 2), true);
    await storage.close();
  });

  it("throws the engine's unavailability as DependencyUnavailableError, its error as the cause", async () => {
    const apps = new FlakyApps();
    const storage = reportUnavailable(storageWith(apps), (error) => error instanceof Down);
    const down = new Down('connect ECONNREFUSED 10.0.0.7:5432 (user gateway)');
    apps.failure = down;
    const error = await storage.apps.findApp('a').then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DependencyUnavailableError);
    assert.equal(error.cause, down);
    // What the client reads names the dependency, not the driver's host or user.
    const answer = toApiError(error);
    assert.equal(answer.statusCode, 503);
    assert.equal(answer.code, 'service_unavailable');
    assert.deepEqual(answer.headers, { 'retry-after': '5' });
    assert.equal(answer.message, 'the database is unavailable; try again in a few seconds');
    assert.doesNotMatch(JSON.stringify(answer.toEnvelope()), /10\.0\.0\.7|5432|gateway|ECONNREFUSED/);
    await storage.close();
  });

  it('lets every other error through unchanged: a programming error stays a 500', async () => {
    const apps = new FlakyApps();
    const storage = reportUnavailable(storageWith(apps), (error) => error instanceof Down);
    const bug = new TypeError("Cannot read properties of undefined (reading 'rows')");
    apps.failure = bug;
    await assert.rejects(storage.apps.listApps(), (error) => error === bug);
    assert.equal(toApiError(bug).statusCode, 500);
    await storage.close();
  });
});
