import { Ajv } from 'ajv';
import { type Static, type TSchema, Type } from 'typebox';
import { StringEnum } from '../../platform/schema-helpers.ts';
import { toFieldIssues } from '../../platform/validation-issues.ts';
import { PAGE_KINDS } from './site-content.ts';

/**
 * Shapes of the content files. Unknown keys are refused, as in the config file, so a misspelt
 * `sumary:` stops start-up instead of silently leaving a page without a summary.
 */
const strict = { additionalProperties: false } as const;
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$';
/** Agent Skills naming: 1-64 lowercase letters, digits and single hyphens, not at either end. */
export const SKILL_NAME_PATTERN = '^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$';

export const PageFrontMatter = Type.Object(
  {
    title: Text(200),
    summary: Text(500),
    updated: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' }),
    kind: StringEnum(PAGE_KINDS),
  },
  strict,
);

/** The MCP server card's schema allows a description of 1 to 100 characters. */
export const SUMMARY_MAX_LENGTH = 100;

export const OverviewFile = Type.Object(
  {
    name: Text(200),
    description: Text(2000),
    summary: Type.Optional(Type.String({ minLength: 1, maxLength: SUMMARY_MAX_LENGTH, pattern: '\\S' })),
    sections: Type.Array(
      Type.Object(
        {
          id: Type.String({ pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' }),
          title: Text(200),
          description: Type.Optional(Text(1000)),
          pages: Type.Array(Type.String({ pattern: SLUG_PATTERN })),
        },
        strict,
      ),
    ),
    apiDocs: Type.Optional(
      Type.Object(
        {
          gateway: Type.Optional(Type.String({ minLength: 1 })),
          site: Type.Optional(Type.String({ minLength: 1 })),
        },
        strict,
      ),
    ),
  },
  strict,
);

/** The SKILL.md front matter of the Agent Skills format. */
export const SkillFrontMatter = Type.Object(
  {
    name: Type.String({ pattern: SKILL_NAME_PATTERN }),
    description: Text(1024),
    license: Type.Optional(Type.String()),
    compatibility: Type.Optional(Text(500)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    'allowed-tools': Type.Optional(Type.String()),
  },
  strict,
);

const ajv = new Ajv({ allErrors: true, strict: false });

/** Compiles a schema into a check that returns the typed value or throws with every failing field. */
export function compileCheck<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return value as Static<T>;
    const issues = toFieldIssues(validate.errors).map((issue) => `${issue.path || '/'} ${issue.message}`);
    throw new Error(issues.join('; '));
  };
}
