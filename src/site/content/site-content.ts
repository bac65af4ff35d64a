/** The site's content, loaded once at start-up from SITE_CONTENT_DIR (or the bundled sample). */

export const PAGE_KINDS = ['page', 'policy'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface SitePage {
  /** Path of the file under pages/, without `.md`: `about`, `docs/getting-started`. */
  slug: string;
  title: string;
  summary: string;
  /** Date of the last meaningful change, YYYY-MM-DD. */
  updated: string;
  kind: PageKind;
  /** Markdown body, front matter removed, public addresses filled in. */
  body: string;
}

export interface SiteSection {
  id: string;
  title: string;
  description?: string;
  /** Slugs of the pages in this section, in display order. */
  pages: string[];
}

export interface SiteOverview {
  name: string;
  description: string;
  /** At most 100 characters: the MCP server's description (initialize, server card). */
  summary: string;
  sections: SiteSection[];
  /** Human-readable documentation per API of the catalog: absolute URLs. */
  apiDocs: { gateway?: string; site?: string };
}

/** One file of an agent skill, exactly as it is served (digests are computed from these bytes). */
export interface SkillFile {
  /** Relative to the skill's directory, forward slashes: `SKILL.md`, `references/errors.md`. */
  path: string;
  bytes: Buffer;
}

export interface AgentSkillSource {
  name: string;
  description: string;
  /** SKILL.md first, then the others sorted by path. */
  files: SkillFile[];
}

export interface SiteContent {
  /** Absolute path of the directory the content was loaded from. */
  dir: string;
  overview: SiteOverview;
  /** Pages first, then policies, each sorted by slug: the stable order of `list_pages`. */
  pages: SitePage[];
  skills: AgentSkillSource[];
}

/** The public addresses content may refer to with `{{PUBLIC_SITE_URL}}` and `{{PUBLIC_GATEWAY_URL}}`. */
export interface PublicUrls {
  siteUrl: string;
  gatewayUrl: string;
}

export function pageUrl(siteUrl: string, slug: string): string {
  return `${siteUrl}/${slug}`;
}
