import { describe, it } from 'node:test';
import { assertAnswers } from '../../../../test/helpers/sampler/answer-assertions.ts';

/** Every format ajv-formats 3 checks (its full list), each alone and with length bounds. */
const FORMATS = [
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'password',
  'binary',
];
const NUMBER_FORMATS = ['int32', 'int64', 'float', 'double'];

/** Formats whose strings can be lengthened to 30 characters, and shortened to 12. */
const STRETCHY = new Set(FORMATS.filter((format) => !['date', 'ipv4', 'uuid'].includes(format)));
const SHORT = new Set(
  FORMATS.filter((format) => !['date-time', 'iso-date-time', 'uuid', 'url'].includes(format)),
);

describe('sampleFromSchema honours each format', () => {
  for (const format of FORMATS) {
    it(format, () => {
      assertAnswers({ type: 'string', format });
      assertAnswers({ format });
      if (STRETCHY.has(format)) assertAnswers({ type: 'string', format, minLength: 30 });
      if (SHORT.has(format)) assertAnswers({ type: 'string', format, maxLength: 12 });
    });
  }
  for (const format of NUMBER_FORMATS) {
    it(format, () => {
      assertAnswers({ type: 'number', format });
      assertAnswers({ type: 'integer', format, minimum: -2_000_000_000, maximum: 2_000_000_000 });
    });
  }
  it('ipv4 and ipv6 of every length they can have', () => {
    for (let length = 7; length <= 15; length++)
      assertAnswers({ type: 'string', format: 'ipv4', minLength: length, maxLength: length }, 1);
    for (let length = 2; length <= 39; length++)
      assertAnswers({ type: 'string', format: 'ipv6', minLength: length, maxLength: length }, 1);
  });
  it('a format beside a pattern', () =>
    assertAnswers({ type: 'string', format: 'email', pattern: '@example\\.com$' }));
});
