import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAgentSkillsIndex, fileDigest, skillDigest } from './agent-skills-index.ts';

const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text, 'utf8') });

describe('agent skills digests', () => {
  it('reproduces the worked example of Agent Skills Discovery 0.2.0', () => {
    const files = [file('SKILL.md', '# Hello\n'), file('scripts/run.sh', '#!/bin/sh\n')];
    assert.equal(
      fileDigest(files[0]!.bytes),
      'sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be',
    );
    assert.equal(
      fileDigest(files[1]!.bytes),
      'sha256:a8076d3d28d21e02012b20eaf7dbf75409a6277134439025f282e368e3305abf',
    );
    assert.equal(
      skillDigest(files),
      'sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e',
    );
  });

  it('sorts by path in byte order before hashing, whatever the listing order', () => {
    const a = [file('SKILL.md', 'x'), file('assets/a.txt', 'y'), file('Z.md', 'z')];
    assert.equal(skillDigest(a), skillDigest([...a].reverse()));
    assert.notEqual(
      skillDigest(a),
      skillDigest([file('SKILL.md', 'x'), file('assets/a.txt', 'Y'), file('Z.md', 'z')]),
    );
  });

  it('builds a 0.2.0 index with a digest per skill and per file', () => {
    const index = buildAgentSkillsIndex([
      { name: 'demo', description: 'Demo skill', files: [file('SKILL.md', '# Hello\n')] },
    ]);
    assert.deepEqual(index, {
      version: '0.2.0',
      skills: [
        {
          name: 'demo',
          description: 'Demo skill',
          digest: skillDigest([file('SKILL.md', '# Hello\n')]),
          files: [
            {
              path: 'SKILL.md',
              digest: 'sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be',
            },
          ],
        },
      ],
    });
  });
});
