import { z } from 'zod';
import { PAGE_KINDS } from '../content/site-content.ts';

/**
 * Input and output schemas of the four tools. The MCP SDK turns them into the JSON Schemas of
 * `tools/list`, validates arguments against the inputs and `structuredContent` against the
 * outputs. Inputs are strict: an unknown argument (a typo such as `kinds`) is an error, not ignored.
 */
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

const PageLink = z.object({
  slug: z.string().describe('Stable identifier of the page, also its path on the site'),
  title: z.string(),
  url: z.string().describe('Absolute URL of the page'),
});

export const SiteOverviewInput = z.strictObject({});
export const SiteOverviewOutput = z.object({
  name: z.string(),
  description: z.string(),
  baseUrl: z.string().describe('Public base URL of the site'),
  sections: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string().optional(),
      pages: z.array(PageLink),
    }),
  ),
  counts: z.object({
    pages: z.number().int().describe('Pages of kind "page"'),
    policies: z.number().int().describe('Pages of kind "policy"'),
  }),
});

export const ListPagesInput = z.strictObject({
  kind: z.enum(PAGE_KINDS).optional().describe('Only pages of this kind; both kinds when omitted'),
  cursor: z.string().optional().describe('nextCursor of the previous answer, to get the following pages'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(DEFAULT_PAGE_LIMIT)
    .describe('Largest number of pages to return'),
});
export const ListPagesOutput = z.object({
  pages: z.array(
    z.object({
      slug: z.string(),
      title: z.string(),
      kind: z.enum(PAGE_KINDS),
      url: z.string(),
      summary: z.string(),
      updated: z.string().describe('Date of the last change, YYYY-MM-DD'),
    }),
  ),
  nextCursor: z.string().optional().describe('Present when more pages follow: pass it as cursor'),
});

export const LookupPolicyInput = z.strictObject({
  policy: z
    .string()
    .min(1)
    .max(200)
    .describe('Slug (e.g. "privacy") or title (e.g. "Privacy Policy"), any case'),
});
export const LookupPolicyOutput = z.object({
  slug: z.string(),
  title: z.string(),
  url: z.string(),
  updated: z.string().describe('Date of the last change, YYYY-MM-DD'),
  text: z.string().describe('Full text of the policy, Markdown'),
});

export const LookupApiCatalogInput = z.strictObject({
  query: z
    .string()
    .max(200)
    .optional()
    .describe("Case-insensitive text matched against each API's id, name, description and base URL"),
});
export const LookupApiCatalogOutput = z.object({
  apis: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      baseUrl: z.string(),
      openapiUrl: z.string().describe('OpenAPI 3.1 document (JSON)'),
      docsUrl: z.string().optional().describe('Human-readable documentation'),
      statusUrl: z.string().describe('Health or status resource (JSON)'),
    }),
  ),
});

export type SiteOverviewData = z.infer<typeof SiteOverviewOutput>;
export type ListPagesArgs = z.output<typeof ListPagesInput>;
export type ListPagesData = z.infer<typeof ListPagesOutput>;
export type LookupPolicyData = z.infer<typeof LookupPolicyOutput>;
export type LookupApiCatalogData = z.infer<typeof LookupApiCatalogOutput>;
