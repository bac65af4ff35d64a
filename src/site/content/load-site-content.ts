import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ConfigError } from '../../config/config-error.ts';
import { fromPackageRoot } from '../../platform/package-root.ts';
import { ContentFileError } from './content-file-error.ts';
import { compileCheck, OverviewFile, SUMMARY_MAX_LENGTH } from './content-schemas.ts';
import { loadAgentSkills } from './load-agent-skills.ts';
import { loadPages } from './load-pages.ts';
import {
  type PublicUrls,
  pageUrl,
  type SiteContent,
  type SiteOverview,
  type SitePage,
} from './site-content.ts';

/** The sample content shipped with the project, used when SITE_CONTENT_DIR is not set. */
export const BUNDLED_CONTENT_DIR = fileURLToPath(fromPackageRoot('site-content/'));

const OVERVIEW_FILE = 'site.yaml';
const checkOverview = compileCheck(OverviewFile);

/**
 * Loads and checks the whole content directory once, at start-up:
 *
 *     site.yaml                        name, description, sections, API docs links
 *     pages/**.md                      pages and policies (front matter: title, summary, updated, kind)
 *     agent-skills/<name>/SKILL.md     skills published under /.well-known/agent-skills/ (optional)
 *
 * Anything wrong stops start-up with a ConfigError naming SITE_CONTENT_DIR and the file.
 */
export function loadSiteContent(dir: string, urls: PublicUrls): SiteContent {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ConfigError('SITE_CONTENT_DIR', `is not a directory: ${dir}`);
  }
  try {
    const pagesDir = join(dir, 'pages');
    if (!existsSync(pagesDir)) throw new ContentFileError(pagesDir, 'the pages directory is missing');
    const pages = loadPages(pagesDir, urls);
    checkUniquePolicyTitles(pagesDir, pages);
    const overview = loadOverview(join(dir, OVERVIEW_FILE), pages, urls);
    const skills = loadAgentSkills(join(dir, 'agent-skills'), urls);
    return { dir, overview, pages, skills };
  } catch (error) {
    if (error instanceof ContentFileError) {
      throw new ConfigError('SITE_CONTENT_DIR', `has a bad file ${error.file}: ${error.message}`);
    }
    throw error;
  }
}

function loadOverview(file: string, pages: readonly SitePage[], urls: PublicUrls): SiteOverview {
  if (!existsSync(file)) throw new ContentFileError(file, 'is missing');
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'), { prettyErrors: true });
  } catch (error) {
    const problem = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ContentFileError(file, `cannot be read as YAML: ${problem}`);
  }
  let overview: ReturnType<typeof checkOverview>;
  try {
    overview = checkOverview(raw);
  } catch (error) {
    throw new ContentFileError(file, (error as Error).message);
  }
  const slugs = new Set(pages.map((page) => page.slug));
  const ids = new Set<string>();
  for (const [index, section] of overview.sections.entries()) {
    if (ids.has(section.id))
      throw new ContentFileError(file, `/sections/${index}/id '${section.id}' is repeated`);
    ids.add(section.id);
    const missing = section.pages.find((slug) => !slugs.has(slug));
    if (missing !== undefined) {
      throw new ContentFileError(file, `/sections/${index}/pages names '${missing}', which is not a page`);
    }
  }
  const apiDocs: SiteOverview['apiDocs'] = {};
  for (const api of ['gateway', 'site'] as const) {
    const target = overview.apiDocs?.[api];
    if (target !== undefined) apiDocs[api] = resolveDocsLink(file, `/apiDocs/${api}`, target, slugs, urls);
  }
  const description = overview.description.trim();
  return {
    name: overview.name,
    description,
    summary: chooseSummary(overview.summary, description),
    sections: overview.sections.map((section) => ({
      id: section.id,
      title: section.title,
      ...(section.description === undefined ? {} : { description: section.description }),
      pages: section.pages,
    })),
    apiDocs,
  };
}

/** Said of the MCP server when site.yaml gives no `summary` and its description is too long to stand in. */
export const DEFAULT_SUMMARY = "Read-only MCP server for this site's pages, policies and API catalog.";

/**
 * The short text for places with a length limit (the server card: 1-100 characters). An explicit
 * `summary` has been checked against the limit already; without one, a description that fits is
 * used as it is, and a longer one gives way to the default rather than being cut mid-thought.
 */
function chooseSummary(summary: string | undefined, description: string): string {
  if (summary !== undefined) return summary.trim();
  return [...description].length <= SUMMARY_MAX_LENGTH ? description : DEFAULT_SUMMARY;
}

/** A docs link is a page slug (served by this site) or an absolute http(s) URL. */
function resolveDocsLink(
  file: string,
  pointer: string,
  target: string,
  slugs: ReadonlySet<string>,
  urls: PublicUrls,
): string {
  if (slugs.has(target)) return pageUrl(urls.siteUrl, target);
  if (/^https?:\/\//.test(target) && URL.canParse(target)) return target;
  throw new ContentFileError(
    file,
    `${pointer} '${target}' is neither a page slug nor an absolute http(s) URL`,
  );
}

/** lookup_policy matches titles too: two policies with one title would make that ambiguous. */
function checkUniquePolicyTitles(pagesDir: string, pages: readonly SitePage[]): void {
  const seen = new Map<string, string>();
  for (const page of pages.filter((candidate) => candidate.kind === 'policy')) {
    const key = page.title.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) {
      throw new ContentFileError(
        join(pagesDir, `${page.slug}.md`),
        `policy title '${page.title}' is also used by '${other}'`,
      );
    }
    seen.set(key, page.slug);
  }
}
