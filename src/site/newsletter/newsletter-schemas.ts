import { Type } from 'typebox';
import { AnyJson, StringEnum } from '../../platform/schema-helpers.ts';

/**
 * Shapes of the newsletter routes, for the OpenAPI document of surface B. The request side is
 * documentation only: the routes validate in code (see read-signup-body.ts) because a missing or
 * malformed address has its own error code, `invalid_email`, rather than `invalid_request`.
 * No `$id`s: these are inlined, so they cannot clash with schemas other site routes register.
 */
export const SignupBody = Type.Object(
  {
    email: Type.String({
      maxLength: 254,
      description:
        'The address to subscribe: the HTML "valid e-mail address" grammar (ASCII; punycode domains), at most 254 characters, 64 before the @, a domain with a dot. Trimmed; the domain is lower-cased.',
      examples: ['ann@example.com'],
    }),
    source: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9][A-Za-z0-9 ._:/-]*$',
        description: 'Where the form is (e.g. `footer`), kept with the consent record; default `api`',
      }),
    ),
  },
  {
    additionalProperties: true,
    description: 'Other fields (a honeypot, tracking fields of a form) are accepted and ignored.',
  },
);

export const SignupAnswer = Type.Object({
  ok: Type.Literal(true),
  status: StringEnum(['pending', 'subscribed'] as const, {
    description:
      '`pending`: a confirmation mail is on its way (double opt-in); `subscribed`: no mail transport is configured. The same for known and unknown addresses.',
  }),
});

export const TokenQuery = Type.Object(
  { token: Type.String({ description: 'The token from the mail link (43 characters, base64url)' }) },
  { additionalProperties: true },
);

export const OneClickBody = Type.Object(
  { 'List-Unsubscribe': Type.Optional(Type.Literal('One-Click')) },
  {
    additionalProperties: true,
    description: 'RFC 8058 sends `List-Unsubscribe=One-Click`; the body is not required and is ignored.',
  },
);

export const StatusAnswer = Type.Object({
  ok: Type.Literal(true),
  status: StringEnum(['pending', 'subscribed', 'unsubscribed'] as const),
});

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(AnyJson()),
  }),
});

const envelope = (description: string) => ({ ...ErrorEnvelope, description });

/** A JSON answer, or a small HTML page for a browser (chosen by Accept). */
export function jsonOrHtml(schema: object, description: string) {
  return {
    description,
    content: {
      'application/json': { schema },
      'text/html': { schema: { type: 'string', description: 'A small HTML page' } },
    },
  };
}

export const signupErrors = {
  400: envelope(
    '`invalid_email` (missing, non-string or invalid address), `invalid_json`, or `invalid_request` (bad `source`)',
  ),
  413: envelope('Body too large'),
  415: envelope('Body is not application/json'),
  429: envelope('Too many signups from this client address; see Retry-After'),
  500: envelope('`upstream_failure`: the subscriber store or a synchronous mailing-list upstream failed'),
} as const;

export const tokenErrors = {
  400: jsonOrHtml(ErrorEnvelope, '`invalid_request`: the link is unknown, expired or malformed'),
  500: jsonOrHtml(
    ErrorEnvelope,
    '`upstream_failure`: the subscriber store or a synchronous mailing-list upstream failed',
  ),
} as const;
