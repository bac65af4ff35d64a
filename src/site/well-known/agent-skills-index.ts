import { createHash } from 'node:crypto';
import type { AgentSkillSource, SkillFile } from '../content/site-content.ts';

/** Agent Skills Discovery via Well-Known URIs, version 0.2.0 (the index format and digests). */
export const AGENT_SKILLS_INDEX_VERSION = '0.2.0';
export const AGENT_SKILLS_PATH = '/.well-known/agent-skills';

export interface AgentSkillsIndex {
  version: string;
  skills: {
    name: string;
    description: string;
    digest: string;
    files: { path: string; digest: string }[];
  }[];
}

function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Per-file digest: `sha256:` and the lowercase hex SHA-256 of the raw bytes. */
export function fileDigest(bytes: Buffer): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/**
 * Skill-level digest: the SHA-256 of the manifest `{path}\0{hex}\n` over the files sorted by path
 * in byte order, so a client can tell from the index alone whether anything in the skill changed.
 */
export function skillDigest(files: readonly SkillFile[]): string {
  const lines = files
    .map((file) => ({ path: Buffer.from(file.path, 'utf8'), hex: sha256Hex(file.bytes) }))
    .sort((a, b) => Buffer.compare(a.path, b.path))
    .map((entry) => Buffer.concat([entry.path, Buffer.from(`\0${entry.hex}\n`, 'utf8')]));
  return `sha256:${sha256Hex(Buffer.concat(lines))}`;
}

/** The index, computed from the very bytes that are served, so digests always match. */
export function buildAgentSkillsIndex(skills: readonly AgentSkillSource[]): AgentSkillsIndex {
  return {
    version: AGENT_SKILLS_INDEX_VERSION,
    skills: skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      digest: skillDigest(skill.files),
      files: skill.files.map((file) => ({ path: file.path, digest: fileDigest(file.bytes) })),
    })),
  };
}
