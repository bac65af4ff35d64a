import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskEmailAddress, parseEmailAddress } from './email-address.ts';

const label63 = 'a'.repeat(63);

describe('parseEmailAddress', () => {
  const valid: [input: string, normalised: string][] = [
    ['user@example.com', 'user@example.com'],
    ['  user@example.com\t', 'user@example.com'],
    ['user@example.com\r\n', 'user@example.com'],
    ['John.Doe@Example.COM', 'John.Doe@example.com'],
    ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
    ["o'brien!#$%&*/=?^_`{|}~-@example.org", "o'brien!#$%&*/=?^_`{|}~-@example.org"],
    ['a@b.co', 'a@b.co'],
    ['user@xn--bcher-kva.example', 'user@xn--bcher-kva.example'],
    ['user@my-host.example', 'user@my-host.example'],
    [`user@${label63}.com`, `user@${label63}.com`],
    [`${'l'.repeat(64)}@example.com`, `${'l'.repeat(64)}@example.com`],
    [`u@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}`, ''],
    ['user@123.example', 'user@123.example'],
  ];
  for (const [input, normalised] of valid) {
    it(`accepts ${JSON.stringify(input.length > 60 ? `${input.slice(0, 40)}…` : input)}`, () => {
      const result = parseEmailAddress(input);
      assert.equal(result.ok, true, JSON.stringify(result));
      if (result.ok && normalised !== '') assert.equal(result.address, normalised);
      if (result.ok) assert.ok(result.address.length <= 254);
    });
  }

  const invalid: [name: string, input: unknown, message: RegExp][] = [
    ['missing', undefined, /required/],
    ['null', null, /required/],
    ['a number', 42, /string/],
    ['an array', ['user@example.com'], /string/],
    ['an object', { email: 'user@example.com' }, /string/],
    ['empty', '', /required/],
    ['only spaces', '   ', /required/],
    ['no @', 'user.example.com', /valid/],
    ['two @', 'user@host@example.com', /valid/],
    ['@ only', '@', /valid/],
    ['no local part', '@example.com', /valid/],
    ['no domain', 'user@', /valid/],
    ['a domain without a dot', 'user@localhost', /dot/],
    ['a trailing dot', 'user@example.com.', /valid/],
    ['a leading dot in the domain', 'user@.example.com', /valid/],
    ['two dots in the domain', 'user@example..com', /valid/],
    ['a label starting with a hyphen', 'user@-example.com', /valid/],
    ['a label ending with a hyphen', 'user@example-.com', /valid/],
    ['an underscore in the domain', 'user@my_host.example', /valid/],
    ['a 64-character label', `user@${'a'.repeat(64)}.com`, /valid/],
    ['a 65-character local part', `${'l'.repeat(65)}@example.com`, /before the @/],
    ['255 characters', `${'l'.repeat(60)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.com`, /254/],
    ['10 KB', `${'a'.repeat(10_240)}@example.com`, /254/],
    ['10 KB of @', '@'.repeat(10_240), /254/],
    ['a quoted local part', '"john doe"@example.com', /valid/],
    ['a quoted local part with @', '"a@b"@example.com', /valid/],
    ['an IPv4 literal', 'user@[192.168.0.1]', /valid/],
    ['an IPv6 literal', 'user@[IPv6:2001:db8::1]', /valid/],
    ['a bare dotted IPv4 address', 'user@192.168.0.1', /not a name/],
    ['a space inside', 'john doe@example.com', /valid/],
    ['CRLF header injection', 'user@example.com\r\nBcc: victim@example.org', /valid/],
    ['LF header injection', 'user@example.com\nSubject: spam', /valid/],
    ['a NUL byte', 'user\u0000@example.com', /valid/],
    ['a tab inside', 'us\ter@example.com', /valid/],
    ['a DEL character', 'user\u007f@example.com', /valid/],
    ['a comma list', 'a@example.com,b@example.com', /valid/],
    ['angle brackets', 'Name <user@example.com>', /valid/],
    ['Cyrillic look-alike letters', 'аdmin@exаmple.com', /valid/],
    ['a full-width @', 'user＠example.com', /valid/],
    ['a Unicode domain', 'user@bücher.example', /valid/],
    ['a zero-width space', 'user\u200b@example.com', /valid/],
    ['a right-to-left override', 'user\u202e@example.com', /valid/],
    ['an emoji', '😀@example.com', /valid/],
    ['a percent-encoded @', 'user%40example.com', /valid/],
  ];
  for (const [name, input, message] of invalid) {
    it(`refuses ${name}`, () => {
      const result = parseEmailAddress(input);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.match(result.message, message);
        assert.ok(result.message.length < 120, 'the message never echoes the input');
      }
    });
  }

  it('stays fast on hostile input', () => {
    const started = performance.now();
    for (let i = 0; i < 200; i++) {
      parseEmailAddress(`${'a'.repeat(60)}@${'a-'.repeat(90)}`);
      parseEmailAddress(`${'a.'.repeat(100)}@example.com`);
    }
    assert.ok(performance.now() - started < 500);
  });
});

describe('maskEmailAddress', () => {
  it('keeps the first character and the domain only', () => {
    assert.equal(maskEmailAddress('john.doe@example.com'), 'j***@example.com');
    assert.equal(maskEmailAddress('nonsense'), '***');
  });
});
