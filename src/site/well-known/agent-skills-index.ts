import { createHash } from 'node:crypto';
import type { AgentSkillSource } from '../content/site-content.ts';
import { buildSkillArchive } from './skill-archive.ts';

/** Agent Skills Discovery 0.2.0, as agentskills.io publishes it: `$schema` and one artifact per skill. */
export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const AGENT_SKILLS_PATH = '/.well-known/agent-skills';

export type SkillArtifactType = 'skill-md' | 'archive';

export interface AgentSkillsIndex {
  $schema: string;
  skills: {
    name: string;
    type: SkillArtifactType;
    description: string;
    url: string;
    digest: string;
  }[];
}

/** What one index entry points at: its bytes, served at `AGENT_SKILLS_PATH/<path>`. */
export interface SkillArtifact {
  name: string;
  type: SkillArtifactType;
  description: string;
  /** Relative to the index's directory, so it is also the entry's `url`. */
  path: string;
  bytes: Buffer;
  contentType: string;
}

/** `sha256:` and the lowercase hex SHA-256 of the raw bytes. */
export function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * A skill that is SKILL.md alone is published as that file (`skill-md`); one with supporting
 * files as a `.tar.gz` of its directory (`archive`), since the specification has a `skill-md`
 * entry carry one file and one digest, and the supporting files need digests too.
 */
export function toSkillArtifact(skill: AgentSkillSource): SkillArtifact {
  const [skillMd] = skill.files;
  if (skill.files.length === 1 && skillMd?.path === 'SKILL.md') {
    return {
      name: skill.name,
      type: 'skill-md',
      description: skill.description,
      path: `${skill.name}/SKILL.md`,
      bytes: skillMd.bytes,
      contentType: 'text/markdown; charset=utf-8',
    };
  }
  return {
    name: skill.name,
    type: 'archive',
    description: skill.description,
    path: `${skill.name}.tar.gz`,
    bytes: buildSkillArchive(skill.files),
    contentType: 'application/gzip',
  };
}

/** The index, with each digest computed from the very bytes that are served. */
export function buildAgentSkillsIndex(artifacts: readonly SkillArtifact[]): AgentSkillsIndex {
  return {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: artifacts.map((artifact) => ({
      name: artifact.name,
      type: artifact.type,
      description: artifact.description,
      url: artifact.path,
      digest: digestOf(artifact.bytes),
    })),
  };
}
