import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  generateSecret,
  hashSecret,
  preferredHashForm,
  verifyKeyedSecret,
  verifySecret,
} from './secret-hash.ts';

describe('secret hashing', () => {
  it('verifies the secret it hashed and nothing else', async () => {
    const hash = await hashSecret('correct horse');
    assert.match(hash, /^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.ok(!hash.includes('correct horse'));
    assert.equal(await verifySecret('correct horse', hash), true);
    assert.equal(await verifySecret('correct horse ', hash), false);
    assert.equal(await verifySecret('', hash), false);
  });

  it('salts: the same secret hashes differently each time', async () => {
    assert.notEqual(await hashSecret('same'), await hashSecret('same'));
  });

  it('never verifies against a malformed hash', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$x$8$1$AA$BB',
      'bcrypt$1$2$3$4$5',
      'scrypt$16384$8$1$AAAA$short',
    ]) {
      assert.equal(await verifySecret('anything', stored), false, stored);
    }
  });

  it('stores a generated secret in the keyed form and checks it at once', async () => {
    const secret = generateSecret();
    const stored = await hashSecret(secret);
    assert.match(stored, /^keyed\$[\w-]{22}\$[\w-]{43}$/);
    assert.ok(!stored.includes(secret.slice(4)));
    assert.equal(verifyKeyedSecret(secret, stored), true);
    assert.equal(await verifySecret(secret, stored), true);
    assert.equal(verifyKeyedSecret(generateSecret(), stored), false);
    assert.equal(verifyKeyedSecret(`${secret}x`, stored), false);
    assert.notEqual(await hashSecret(secret), stored, 'salted');
    assert.equal(preferredHashForm(secret), 'keyed');
    assert.equal(
      preferredHashForm(`${secret}x`),
      'scrypt',
      'anything not exactly generated-shaped is scrypt',
    );
    assert.equal(preferredHashForm('gws_short'), 'scrypt');
    for (const malformed of ['keyed$', 'keyed$$', 'keyed$salt$short', `keyed$$${stored.split('$')[2]}`])
      assert.equal(verifyKeyedSecret(secret, malformed), false, malformed);
  });

  it('generates long, distinct, URL-safe secrets', () => {
    const a = generateSecret();
    assert.match(a, /^gws_[\w-]{43}$/);
    assert.notEqual(a, generateSecret());
  });
});
