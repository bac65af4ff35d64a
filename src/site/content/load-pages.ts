import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { ContentFileError } from './content-file-error.ts';
import { compileCheck, PageFrontMatter, SLUG_PATTERN } from './content-schemas.ts';
import { fillPlaceholders } from './fill-placeholders.ts';
import { readFrontMatter } from './read-front-matter.ts';
import type { PublicUrls, SitePage } from './site-content.ts';

/**
 * First path segments the site API itself uses: a page there would shadow (or be shadowed by) a
 * route, because pages are served at `/<slug>`.
 */
const RESERVED_SLUG_ROOTS = new Set(['api', 'mcp', 'up', 'openapi', 'pages']);
const slugPattern = new RegExp(SLUG_PATTERN);
const checkFrontMatter = compileCheck(PageFrontMatter);

/** Reads every `*.md` under `pagesDir` (recursively, dot files skipped); the slug is the path without `.md`. */
export function loadPages(pagesDir: string, urls: PublicUrls): SitePage[] {
  const files = readdirSync(pagesDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.split(sep).some((segment) => segment.startsWith('.')))
    .filter((name) => statSync(join(pagesDir, name)).isFile())
    .sort();
  const pages = files.map((name) => loadPage(join(pagesDir, name), name.split(sep).join('/'), urls));
  const byKind = (page: SitePage) => (page.kind === 'page' ? 0 : 1);
  return pages.sort((a, b) => byKind(a) - byKind(b) || a.slug.localeCompare(b.slug));
}

function loadPage(file: string, relative: string, urls: PublicUrls): SitePage {
  const slug = relative.slice(0, -'.md'.length);
  if (!slugPattern.test(slug)) {
    throw new ContentFileError(
      file,
      'file name must be lowercase letters, digits and hyphens (it becomes the page slug and URL)',
    );
  }
  const root = slug.split('/')[0] ?? slug;
  if (RESERVED_SLUG_ROOTS.has(root)) {
    throw new ContentFileError(file, `slug '${slug}' is reserved: '/${root}' is a path of the site API`);
  }
  try {
    const document = readFrontMatter(readFileSync(file, 'utf8'));
    const front = checkFrontMatter(document.data);
    if (!isCalendarDate(front.updated)) throw new Error(`/updated ${front.updated} is not a calendar date`);
    const body = fillPlaceholders(document.body.trim(), urls);
    if (body === '') throw new Error('the page has no text after its front matter');
    return {
      slug,
      title: front.title,
      summary: front.summary,
      updated: front.updated,
      kind: front.kind,
      body,
    };
  } catch (error) {
    throw new ContentFileError(file, error instanceof Error ? error.message : String(error));
  }
}

function isCalendarDate(value: string): boolean {
  const time = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over to March: a real date survives the round trip unchanged.
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}
