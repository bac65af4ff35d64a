import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CachedBearerAuth, REFRESH_BEFORE_MS } from './cached-bearer-auth.ts';
import { isProviderError } from './provider-error.ts';

describe('a cloud bearer token, cached', () => {
  it('is fetched once for many requests, also concurrent ones, until it nears expiry', async () => {
    let now = 1_000_000;
    let fetched = 0;
    const auth = new CachedBearerAuth(
      'provider-a',
      'the test source',
      async () => {
        fetched++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { token: `t${fetched}`, expiresAt: now + 3_600_000 };
      },
      () => now,
    );
    const first = await Promise.all(Array.from({ length: 20 }, () => auth.headers()));
    assert.equal(fetched, 1);
    assert.ok(first.every((headers) => headers['authorization'] === 'Bearer t1'));
    now += 3_600_000 - REFRESH_BEFORE_MS - 1;
    assert.equal((await auth.headers())['authorization'], 'Bearer t1');
    now += 2;
    assert.equal((await auth.headers())['authorization'], 'Bearer t2');
    assert.equal(fetched, 2);
  });

  it('turns a failing source into a credentials failure naming it, and tries again on the next request', async () => {
    let calls = 0;
    const auth = new CachedBearerAuth('provider-b', 'the service-account file', async () => {
      calls++;
      if (calls === 1) throw new Error('the token endpoint refused the assertion (invalid_grant)');
      return { token: 'ok', expiresAt: Date.now() + 3_600_000 };
    });
    await assert.rejects(auth.headers(), (error: unknown) => {
      assert.ok(isProviderError(error));
      assert.equal(error.failure, 'credentials');
      assert.equal(error.retryable, true);
      assert.match(
        error.detail ?? '',
        /^the service-account file: the token endpoint refused the assertion \(invalid_grant\)$/,
      );
      return true;
    });
    assert.equal((await auth.headers())['authorization'], 'Bearer ok');
  });
});
