import { existsSync } from 'node:fs';

/**
 * A file of the project (relative to the folder holding its package.json): the same file whether
 * this code runs from src/ (tests, the CLIs) or bundled into dist/ (`npm start`), where a path
 * relative to `import.meta.url` would point elsewhere. The folder is found once, walking up from
 * this module.
 */
export function fromPackageRoot(path: string): URL {
  root ??= findRoot();
  return new URL(path, root);
}

let root: URL | undefined;

function findRoot(): URL {
  let dir = new URL('./', import.meta.url);
  while (!existsSync(new URL('package.json', dir))) {
    const parent = new URL('../', dir);
    if (parent.href === dir.href) throw new Error(`no package.json above ${import.meta.url}`);
    dir = parent;
  }
  return dir;
}
