import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { ContentFileError } from './content-file-error.ts';
import { compileCheck, SKILL_NAME_PATTERN, SkillFrontMatter } from './content-schemas.ts';
import { fillPlaceholders } from './fill-placeholders.ts';
import { readFrontMatter } from './read-front-matter.ts';
import type { AgentSkillSource, PublicUrls, SkillFile } from './site-content.ts';

const skillNamePattern = new RegExp(SKILL_NAME_PATTERN);
const checkSkillFrontMatter = compileCheck(SkillFrontMatter);
/** Placeholders are filled only in text files; anything else is served byte for byte. */
const TEXT_EXTENSIONS = new Set(['.md', '.txt', '.json', '.yaml', '.yml']);
/** Agent Skills Discovery 0.2.0: printable ASCII, no `\ ? # [ ]`, no `..` segment. */
const SAFE_PATH = /^[\x20-\x7e]+$/;
const UNSAFE_PATH_CHARACTERS = /[\\?#[\]]/;

/**
 * Reads `agent-skills/<name>/**`: one directory per skill, each with a SKILL.md whose front matter
 * `name` equals the directory name. The directory is optional; without it no skill is published.
 */
export function loadAgentSkills(skillsDir: string, urls: PublicUrls): AgentSkillSource[] {
  if (!existsSync(skillsDir)) return [];
  return readdirSync(skillsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort()
    .map((name) => loadSkill(join(skillsDir, name), name, urls));
}

function loadSkill(dir: string, name: string, urls: PublicUrls): AgentSkillSource {
  if (!skillNamePattern.test(name)) {
    throw new ContentFileError(
      dir,
      'a skill directory name must be 1-64 lowercase letters, digits and hyphens',
    );
  }
  const paths = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((relative) => relative.split(sep).join('/'))
    .filter((relative) => !relative.split('/').some((segment) => segment.startsWith('.')))
    .filter((relative) => statSync(join(dir, relative)).isFile());
  if (!paths.includes('SKILL.md')) throw new ContentFileError(dir, 'a skill directory must contain SKILL.md');
  const files: SkillFile[] = paths.map((path) => readSkillFile(dir, path, urls));
  const skillFile = files.find((file) => file.path === 'SKILL.md') as SkillFile;
  const skillPath = join(dir, 'SKILL.md');
  let description: string;
  try {
    const front = checkSkillFrontMatter(readFrontMatter(skillFile.bytes.toString('utf8')).data);
    if (front.name !== name) throw new Error(`/name '${front.name}' must equal the directory name '${name}'`);
    description = front.description;
  } catch (error) {
    throw new ContentFileError(skillPath, error instanceof Error ? error.message : String(error));
  }
  // SKILL.md first (the index SHOULD list it first), then byte order, which is also the digest order.
  const rest = files.filter((file) => file.path !== 'SKILL.md').sort((a, b) => compareBytes(a.path, b.path));
  return { name, description, files: [skillFile, ...rest] };
}

function readSkillFile(dir: string, path: string, urls: PublicUrls): SkillFile {
  if (!SAFE_PATH.test(path) || UNSAFE_PATH_CHARACTERS.test(path)) {
    throw new ContentFileError(
      join(dir, path),
      'skill file names must be printable ASCII without \\ ? # [ ]',
    );
  }
  const raw = readFileSync(join(dir, path));
  const bytes = TEXT_EXTENSIONS.has(extname(path).toLowerCase())
    ? Buffer.from(fillPlaceholders(raw.toString('utf8'), urls), 'utf8')
    : raw;
  return { path, bytes };
}

export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
