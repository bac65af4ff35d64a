import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface StartScript {
  env: Record<string, string>;
  nodeArgs: string[];
}

/** `NAME=${NAME:-value} … exec node <flags> dist/main.js`, as package.json writes `npm start`. */
export function startScript(): StartScript {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  for (let word = words.shift(); word !== undefined && word !== 'node'; word = words.shift()) {
    // `exec`: the shell npm runs the script in becomes node, so npm's SIGTERM reaches it.
    if (word === 'exec') continue;
    const match = /^([A-Z_]+)=(?:\$\{\1:-(.*)\}|(.*))$/.exec(word);
    assert.ok(match !== null, `unexpected start script: ${scripts.start}`);
    env[match[1] as string] = match[2] ?? match[3] ?? '';
  }
  assert.equal(words.at(-1), 'dist/main.js', scripts.start);
  return { env, nodeArgs: words.slice(0, -1) };
}
