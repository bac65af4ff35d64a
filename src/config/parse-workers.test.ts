import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { loadConfig } from './load-config.ts';

describe('GATEWAY_WORKERS (CONTRACT 6.8)', () => {
  it('unset or auto is one worker per CPU; a whole number is that many', () => {
    assert.equal(loadConfig({}, []).workers, availableParallelism());
    assert.equal(loadConfig({ GATEWAY_WORKERS: 'auto' }, []).workers, availableParallelism());
    assert.equal(loadConfig({ GATEWAY_WORKERS: 'AUTO' }, []).workers, availableParallelism());
    assert.equal(loadConfig({ GATEWAY_WORKERS: '1' }, []).workers, 1);
    assert.equal(loadConfig({ GATEWAY_WORKERS: ' 3 ' }, []).workers, 3);
  });

  for (const raw of ['0', '-2', '1.5', 'two', '1e3', '99999']) {
    it(`'${raw}' stops start-up with an error naming the variable`, () => {
      assert.throws(
        () => loadConfig({ GATEWAY_WORKERS: raw }, []),
        (error: unknown) => error instanceof ConfigError && error.message.includes('GATEWAY_WORKERS'),
      );
    });
  }
});
