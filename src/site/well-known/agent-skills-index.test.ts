import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  AGENT_SKILLS_SCHEMA,
  buildAgentSkillsIndex,
  digestOf,
  toSkillArtifact,
} from './agent-skills-index.ts';

const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text, 'utf8') });
const hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Unpacks with the system's own tar, an implementation independent of ours. */
function unpack(archive: Buffer): { list: string[]; read: (path: string) => Buffer; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'skill-archive-'));
  writeFileSync(join(dir, 'skill.tar.gz'), archive);
  const listed = spawnSync('tar', ['-tzf', 'skill.tar.gz'], { cwd: dir, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  const extracted = spawnSync('tar', ['-xzf', 'skill.tar.gz', '-C', dir], { cwd: dir, encoding: 'utf8' });
  assert.equal(extracted.status, 0, extracted.stderr);
  return {
    list: listed.stdout.trim().split('\n'),
    read: (path) => readFileSync(join(dir, path)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('agent skills index (Agent Skills Discovery 0.2.0)', () => {
  it('digests are sha256: and the lowercase hex SHA-256 of the raw bytes', () => {
    assert.equal(
      digestOf(Buffer.from('# Hello\n')),
      'sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be',
    );
  });

  it('publishes a skill that is SKILL.md alone as a skill-md entry pointing at that file', () => {
    const skillMd = file('SKILL.md', '---\nname: demo\ndescription: Demo skill\n---\n# Hello\n');
    const index = buildAgentSkillsIndex([
      toSkillArtifact({ name: 'demo', description: 'Demo skill', files: [skillMd] }),
    ]);
    assert.deepEqual(index, {
      $schema: AGENT_SKILLS_SCHEMA,
      skills: [
        {
          name: 'demo',
          type: 'skill-md',
          description: 'Demo skill',
          url: 'demo/SKILL.md',
          digest: `sha256:${hex(skillMd.bytes)}`,
        },
      ],
    });
  });

  it('publishes a skill with supporting files as a .tar.gz holding every file at its path', () => {
    const longPath = `references/${'nested-directory/'.repeat(6)}${'x'.repeat(60)}.md`;
    const files = [
      file('SKILL.md', '---\nname: multi\ndescription: Multi\n---\nSee [errors](references/errors.md).\n'),
      file('references/errors.md', 'e'.repeat(1500)),
      file(longPath, 'deep\n'),
      file('scripts/empty.txt', ''),
    ];
    const artifact = toSkillArtifact({ name: 'multi', description: 'Multi', files });
    assert.equal(artifact.type, 'archive');
    assert.equal(artifact.path, 'multi.tar.gz');
    assert.equal(artifact.contentType, 'application/gzip');
    assert.equal(buildAgentSkillsIndex([artifact]).skills[0]?.digest, `sha256:${hex(artifact.bytes)}`);

    const unpacked = unpack(artifact.bytes);
    try {
      assert.deepEqual(
        unpacked.list,
        files.map((f) => f.path),
        'files at the root, SKILL.md first',
      );
      for (const f of files) assert.ok(unpacked.read(f.path).equals(f.bytes), f.path);
    } finally {
      unpacked.remove();
    }
  });

  it('builds the same archive bytes for the same files, so the digest only changes with the content', () => {
    const files = [file('SKILL.md', 'a'), file('references/b.md', 'b')];
    const skill = { name: 'same', description: 'Same', files };
    assert.ok(toSkillArtifact(skill).bytes.equals(toSkillArtifact(skill).bytes));
    const changed = { ...skill, files: [files[0] as (typeof files)[0], file('references/b.md', 'B')] };
    assert.notEqual(digestOf(toSkillArtifact(skill).bytes), digestOf(toSkillArtifact(changed).bytes));
  });
});
