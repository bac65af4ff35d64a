import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtInDetector, PERSONAL_DATA_TYPES, SECRET_TYPES } from './built-in-detectors.ts';
import type { Finding } from './finding.ts';
import { maskText } from './mask-text.ts';

/**
 * Every built-in detector against values it must find (each inside a sentence, found exactly, the
 * rest of the text untouched) and look-alikes it must leave alone (a checksum that fails, a length
 * one short, another prefix, a neighbouring format). The tables are exported for the door tests.
 */
export const MATCHES: Readonly<Record<string, readonly string[]>> = {
  AWS_ACCESS_KEY: ['AKIAIOSFODNN7EXAMPLE', 'ASIAY34FZKBOKMUTVV7A', 'AKIA2E0A8F3B244C9986'],
  GITHUB_TOKEN: [
    'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
    'gho_16C7e42F292c6912E7710c838347Ae178B4a',
    `github_pat_11ABCDEFG0123456789abc_${'a1B2c3D4e5'.repeat(5)}f6G7h8I9j`,
  ],
  OPENAI_KEY: [
    `sk-proj-${'Ab3dEf6hIj9kLm2n'.repeat(8)}`,
    'sk-4f3Bz9QpL2mX8vR1tY6wK0jH5gD7cA3eN9uS2iO4pZ8xV1bM',
    `sk-svcacct-${'Zx9_Yw8-Vu7Ts6Rq'.repeat(4)}`,
  ],
  ANTHROPIC_KEY: [
    `sk-ant-api03-${'Qw3rTy6uIo9pAs2dFg5h'.repeat(4)}Jk8lZx1cVb4nM7-_q2W5e8R1t4Y7u0AA`,
    `sk-ant-admin01-${'Hj4kL7zX0cV3bN6m'.repeat(5)}AA`,
  ],
  GOOGLE_API_KEY: ['AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'AIzaSyA1b2C3d4E5f6G7h8I9j0K_lMnOpQrStUv'],
  SLACK_TOKEN: [
    'xoxb-2400000000000-4100000000000-ZyXwVuTsRqPoNmLkJiHgFeDc',
    'xoxp-1234567890-1234567890-1234567890-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  ],
  JWT: [
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.MEUCIQDkQ2Z3x4y5z6a7b8c9d0e1f2g3',
  ],
  PRIVATE_KEY: [
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----',
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----',
  ],
  EMAIL: ['alice@example.com', 'first.last+tag@mail.example.co.uk', 'o_connor%x@sub-domain.example.org'],
  PHONE: [
    '+1 415 555 2671',
    '+44 20 7946 0958',
    '+4930901820',
    '(415) 555-2671',
    '415-555-2671',
    '415.555.2671',
    '1-800-555-0199',
    '020 7946 0958',
    '01 23 45 67 89',
  ],
  CARD: [
    '4111111111111111',
    '4111 1111 1111 1111',
    '5500-0000-0000-0004',
    '3782 822463 10005',
    '6011000990139424',
  ],
  IBAN: [
    'GB82 WEST 1234 5698 7654 32',
    'DE89370400440532013000',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
  ],
  US_SSN: ['078-05-1120', '123-45-6789', '219 09 9999'],
};

export const LOOK_ALIKES: Readonly<Record<string, readonly string[]>> = {
  AWS_ACCESS_KEY: [
    'AKIAIOSFODNN7EXAMPL',
    'akiaiosfodnn7example',
    'XAKIAIOSFODNN7EXAMPLE',
    'AKIAIOSFODNN7EXAMPLEX',
    'AKIDIOSFODNN7EXAMPLE',
  ],
  GITHUB_TOKEN: [
    'ghp_16C7e42F292c6912E7710c838347Ae178B4',
    'ghx_16C7e42F292c6912E7710c838347Ae178B4a',
    'ghp_',
    'github_pat_short',
  ],
  OPENAI_KEY: [
    'sk-short',
    'task-4f3Bz9QpL2mX8vR1tY6wK0jH5gD7cA3eN9uS2iO4pZ8xV1bM',
    'sk-4f3Bz9QpL2mX8vR1tY6wK0jH5g',
  ],
  ANTHROPIC_KEY: ['sk-ant-api03-short', 'sk-ant-', 'xsk-ant-api03-Qw3rTy6uIo9pAs2dFg5hQw3rTy6uIo9pAs2dFg5h'],
  GOOGLE_API_KEY: [
    'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBW',
    'AIZaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY',
    'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWYZ',
  ],
  SLACK_TOKEN: ['xoxz-2400000000000-4100000000000', 'xoxb-123', 'https://hooks.slack.com/services/'],
  JWT: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0', 'eyJ.eyJ.x'],
  PRIVATE_KEY: [
    '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----',
    '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----',
    'the words BEGIN PRIVATE KEY in prose',
  ],
  EMAIL: ['user@localhost', '@handle', 'a@b.c', 'x@.com', 'name at example dot com', 'foo@bar'],
  PHONE: ['4155552671', '94105', '94105-1234', '2024-01-15', '192.168.1.1', '12345', 'v1.2.3', '3.14159'],
  CARD: [
    '4111111111111112',
    '4111 1111 1111 1112',
    '1234567812345670',
    '4111-1111 1111-1111',
    '411111111111',
  ],
  IBAN: [
    'GB82WEST12345698765433',
    'XX89370400440532013000',
    'DE8937040044053201300',
    'DE89370400440532013000X',
  ],
  US_SSN: [
    '000-12-3456',
    '666-12-3456',
    '900-12-3456',
    '123-00-4567',
    '123-45-0000',
    '123456789',
    '123-45-67890',
  ],
};

const ALL = [...SECRET_TYPES, ...PERSONAL_DATA_TYPES];
const everything = builtInDetector(ALL);

function findAll(text: string): Finding[] {
  const found: Finding[] = [];
  everything(text, found);
  return found;
}

describe('built-in detectors', () => {
  for (const type of ALL) {
    const detector = builtInDetector([type]);
    for (const value of MATCHES[type] ?? []) {
      it(`${type} finds ${JSON.stringify(value.slice(0, 24))}…`, () => {
        const text = `before: ${value} and after.`;
        const found: Finding[] = [];
        detector(text, found);
        assert.deepEqual(found, [{ start: 8, end: 8 + value.length, type }]);
        assert.equal(maskText(text, found), `before: [REDACTED:${type}] and after.`);
      });
    }
    for (const value of LOOK_ALIKES[type] ?? []) {
      it(`${type} leaves the look-alike ${JSON.stringify(value.slice(0, 24))} alone`, () => {
        const text = `before: ${value} and after.`;
        const found = findAll(text).filter((finding) => finding.type === type);
        assert.deepEqual(found, []);
      });
    }
  }

  it('a card, an IBAN, a ZIP code and a date are never phones', () => {
    for (const value of [
      ...(MATCHES.CARD ?? []),
      ...(MATCHES.IBAN ?? []),
      '94105',
      '94105-1234',
      '2024-01-15',
    ]) {
      const phones = findAll(`see ${value}.`).filter((finding) => finding.type === 'PHONE');
      assert.deepEqual(phones, [], value);
    }
  });

  it('finds a phone number after another number in the same stretch', () => {
    const text = 'order 12 415-555-2671 today';
    assert.deepEqual(findAll(text), [{ start: 9, end: 21, type: 'PHONE' }]);
  });

  it('a private key without its END line is cut from its BEGIN line to the end', () => {
    const text = 'config:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oLB';
    assert.equal(maskText(text, findAll(text)), 'config:\n[REDACTED:PRIVATE_KEY]');
  });

  it('masks every finding of a mixed text and keeps the rest', () => {
    const text =
      'key AKIAIOSFODNN7EXAMPLE, mail alice@example.com, card 4111 1111 1111 1111, call +1 415 555 2671.';
    assert.equal(
      maskText(text, findAll(text)),
      'key [REDACTED:AWS_ACCESS_KEY], mail [REDACTED:EMAIL], card [REDACTED:CARD], call [REDACTED:PHONE].',
    );
  });

  it('refuses an unknown type', () => {
    assert.throws(() => builtInDetector(['CREDIT_SCORE']), /unknown detector 'CREDIT_SCORE'/);
  });
});

describe('built-in detectors on hostile text', () => {
  const cases: Record<string, string> = {
    'digits and separators': '1-'.repeat(200_000),
    'at signs': 'a@'.repeat(200_000),
    'token characters': 'sk-'.repeat(150_000),
    'JWT prefixes': 'eyJaaaaaaaaa.'.repeat(40_000),
    'country codes': 'DE89 '.repeat(100_000),
    'BEGIN lines': '-----BEGIN '.repeat(40_000),
    'parentheses and pluses': '(1+'.repeat(150_000),
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`reads ${text.length} characters of ${name} in linear time`, () => {
      const started = performance.now();
      findAll(text);
      assert.ok(performance.now() - started < 1500, `${name} took ${performance.now() - started} ms`);
    });
  }
});

describe('built-in detectors on any text', () => {
  it('end, and find spans inside the text that masking removes', async () => {
    const fc = (await import('fast-check')).default;
    const alphabet = fc.constantFrom(...'0123456789+-() .@aZ_kAIsKDE-\n'.split(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 300 }).map((chars) => chars.join('')),
        (text) => {
          const found = findAll(text);
          for (const finding of found)
            assert.ok(finding.start >= 0 && finding.end <= text.length && finding.start < finding.end);
          const masked = maskText(text, found);
          assert.deepEqual(findAll(masked), []);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
