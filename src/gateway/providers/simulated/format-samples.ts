/**
 * Strings for every format ajv-formats checks (its "full" mode, as the gateway uses it), several
 * per format so that a retry, or length bounds, can take another. Each is valid by the format's
 * RFC: RFC 3339 dates and times (full-date, full-time with an offset; the iso- forms make the
 * offset optional), ISO 8601 durations, RFC 3986 URIs, RFC 6570 templates, RFC 5321 addresses,
 * RFC 1123 host names, RFC 4122 UUIDs, RFC 6901 and relative JSON Pointers, RFC 4648 base64.
 * Formats Ajv does not check for strings (int32, float, …) take ordinary text.
 */
export const FORMAT_SAMPLES: Readonly<Record<string, readonly string[]>> = {
  date: ['2026-01-01', '2025-12-31', '2024-02-29'],
  time: ['12:00:00Z', '08:30:15+02:00', '23:59:59.5Z'],
  'date-time': ['2026-01-01T00:00:00Z', '2025-06-30T12:34:56+01:00', '2024-02-29T23:59:59.25Z'],
  'iso-time': ['12:00:00Z', '08:30:15', '23:59:59.5+05:30'],
  'iso-date-time': ['2026-01-01T00:00:00Z', '2025-06-30T12:34:56', '2024-02-29T23:59:59.25-03:00'],
  duration: ['P1D', 'PT1H30M', 'P1Y2M3DT4H5M6S', 'P2W'],
  uri: ['https://example.com/', 'urn:isbn:0451450523', 'mailto:user@example.com', 'urn:a:b'],
  'uri-reference': ['https://example.com/', '/path/to', '#top'],
  'uri-template': ['https://example.com/{id}', 'https://example.com/', '/items{?page}', '/a{b}'],
  url: ['https://example.com/', 'http://example.org/path?q=1', 'http://a.io'],
  email: ['user@example.com', 'a@b.io', 'first.last@example.org'],
  'idn-email': ['user@example.com'],
  hostname: ['example.com', 'a', 'api.example.org'],
  'idn-hostname': ['example.com'],
  ipv4: ['192.0.2.1', '10.0.0.1', '203.0.113.255'],
  ipv6: ['2001:db8::1', '::1', 'fe80::1:2:3:4', '2001:0db8:0000:0000:0000:0000:0000:0001'],
  regex: ['^a$', '[0-9]+', 'x'],
  uuid: ['00000000-0000-4000-8000-000000000000', '123e4567-e89b-12d3-a456-426614174000'],
  'json-pointer': ['/a', '', '/a~1b/0'],
  'json-pointer-uri-fragment': ['#/a', '#', '#/a%20b/0'],
  'relative-json-pointer': ['0', '1/a', '0#'],
  byte: ['c2ltdWxhdGVk', '', 'YQ=='],
  iri: ['https://example.com/'],
  'iri-reference': ['https://example.com/'],
};

/** Lengthens a format sample to minLength where the format has room for it, else unchanged. */
export function padFormatted(format: string, sample: string, minLength: number): string {
  const missing = minLength - [...sample].length;
  if (missing <= 0) return sample;
  // Each form below is valid for its format at any length, and is at least minLength long.
  const fill = (char: string, fixed: number): string => char.repeat(Math.max(1, minLength - fixed));
  if (format === 'email' || format === 'idn-email') return `user${fill('x', 16)}@example.com`;
  // A relative path is a URI reference and a template; a URI needs a scheme, a URL a host.
  if (format === 'uri-reference' || format === 'uri-template' || format === 'iri-reference')
    return `/${'a'.repeat(Math.max(0, minLength - 1))}`;
  if (format === 'uri' || format === 'iri') return `a:${fill('b', 2)}`;
  if (format === 'url') return minLength <= 11 ? 'http://a.io' : `http://a.io/${'x'.repeat(minLength - 12)}`;
  if (format === 'date-time' || format === 'iso-date-time') return `2026-01-01T00:00:00.${fill('0', 21)}Z`;
  if (format === 'time' || format === 'iso-time') return `12:00:00.${fill('0', 10)}Z`;
  if (format === 'hostname') return `${'a'.repeat(Math.min(63, Math.max(1, minLength - 12)))}.example.com`;
  if (format === 'json-pointer') return `/${fill('a', 1)}`;
  if (format === 'json-pointer-uri-fragment') return `#/${fill('a', 2)}`;
  if (format === 'relative-json-pointer') return `0/${fill('a', 2)}`;
  if (format === 'duration') return `P${fill('0', 2)}D`;
  if (format === 'byte') return 'YWFh'.repeat(Math.ceil(minLength / 4));
  if (format === 'ipv4') return ipv4OfLength(minLength) ?? sample;
  if (format === 'ipv6') return ipv6OfLength(minLength) ?? sample;
  if (format === 'regex' || format === 'password' || format === 'binary')
    return `${sample}${'a'.repeat(missing)}`;
  return sample;
}

/** An IPv4 address exactly this long (7 to 15 characters): octets 1, 10 or 100. */
function ipv4OfLength(length: number): string | undefined {
  if (length < 7 || length > 15) return undefined;
  let extra = length - 7;
  const octets = [0, 1, 2, 3].map(() => {
    const digits = 1 + Math.min(2, extra);
    extra -= digits - 1;
    return `1${'0'.repeat(digits - 1)}`;
  });
  return octets.join('.');
}

/**
 * An IPv6 address exactly this long (2 to 39 characters): eight groups of 1-4 zeros from 15
 * characters up, `::` and 1-6 groups of hex digits below.
 */
function ipv6OfLength(length: number): string | undefined {
  if (length >= 15 && length <= 39) return fillGroups(8, length - 7, '0').join(':');
  if (length < 2 || length > 39) return undefined;
  if (length === 2) return '::';
  for (let count = 1; count <= 6; count++) {
    const digits = length - 2 - (count - 1);
    if (digits >= count && digits <= 4 * count) return `::${fillGroups(count, digits, 'f').join(':')}`;
  }
  return undefined;
}

/** `count` groups of 1-4 copies of `char`, `digits` characters in all. */
function fillGroups(count: number, digits: number, char: string): string[] {
  let extra = digits - count;
  return Array.from({ length: count }, () => {
    const size = 1 + Math.min(3, extra);
    extra -= size - 1;
    return char.repeat(size);
  });
}
