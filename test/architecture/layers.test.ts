import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The layers of decision 0008, checked over the import graph of `src/` (production files; unit
 * tests beside their source may reach further, as tests do). Biome's `noRestrictedImports`
 * matches an import's text, not the file it resolves to, so it cannot say "folder X may not
 * import folder Y" for relative paths at every depth, nor see a circle: this test can.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Rule {
  /** Files under this folder (repository-relative, with a trailing slash) … */
  from: string;
  /** … may not import files under any of these … */
  forbid?: readonly string[];
  /** … or, when given, only files under these (and packages). */
  only?: readonly string[];
  why: string;
}

const RULES: readonly Rule[] = [
  {
    from: 'src/gateway/domain/',
    only: ['src/gateway/domain/', 'src/config/config-types.ts'],
    why: 'the domain is pure: it imports only the domain and configuration types',
  },
  {
    from: 'src/gateway/services/',
    forbid: ['src/gateway/http/', 'src/gateway/doors/'],
    why: "services take domain inputs, never HTTP types or a door's wire format",
  },
  {
    from: 'src/gateway/http/',
    forbid: ['src/gateway/doors/'],
    why: 'http/ is the plumbing every door stands on (auth hook, run start, stream writer): it knows no door',
  },
  {
    from: 'src/gateway/providers/',
    forbid: ['src/gateway/services/', 'src/gateway/http/'],
    why: 'adapters translate the domain to an upstream and know nothing above them',
  },
  {
    from: 'src/gateway/doors/',
    forbid: ['src/gateway/providers/', 'src/storage/'],
    why: 'a front door translates a client format to the domain and calls services, as http/ does',
  },
  {
    from: 'src/gateway/tokenizer/',
    forbid: [
      'src/gateway/services/',
      'src/gateway/http/',
      'src/gateway/providers/',
      'src/gateway/doors/',
      'src/storage/',
    ],
    why: "the tokenizer's thread runs the domain's counting for whoever asks, and knows none of them",
  },
  {
    from: 'src/storage/',
    forbid: ['src/gateway/', 'src/site/'],
    why: 'storage implements ports; it never imports the surfaces',
  },
  { from: 'src/gateway/', forbid: ['src/site/'], why: 'the two surfaces never import each other' },
  { from: 'src/site/', forbid: ['src/gateway/'], why: 'the two surfaces never import each other' },
  {
    from: 'src/platform/',
    forbid: ['src/gateway/', 'src/site/', 'src/storage/'],
    why: 'platform is shared plumbing below both surfaces',
  },
];

/** Folders whose subfolders must not import each other in a circle. */
const ACYCLIC: readonly string[] = ['src/site/', 'src/gateway/'];

/**
 * Folders whose subfolders may not import each other at all: a door is a folder of its own
 * wire format, and what two doors read alike lives at the doors' root (contract 6.2).
 */
const SEALED: readonly string[] = ['src/gateway/doors/'];

/** A file past this is more than one concept (split past ~300 lines, house style). */
const MAX_LINES = 400;

/** Node built-ins the domain may not import (it does no I/O). */
const IO_MODULES = /^node:|^(fastify|undici|pg|ioredis)(\/|$)/;

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Each file's imports: repository-relative paths for relative specifiers, the specifier otherwise. */
type ImportGraph = Map<string, string[]>;

/** Every TypeScript file under `folder`, tests included, repository-relative. */
function listSources(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

function readImportGraph(root: string, folder: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of listSources(root, folder)) {
    if (file.endsWith('.test.ts')) continue;
    graph.set(file, importsOf(file, readFileSync(join(root, file), 'utf8')));
  }
  return graph;
}

function importsOf(file: string, source: string): string[] {
  const imports: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = (match[1] ?? match[2] ?? match[3]) as string;
    imports.push(specifier.startsWith('.') ? posix.join(posix.dirname(file), specifier) : specifier);
  }
  return imports;
}

/** Every import that breaks a rule, as `file → import: why`. */
function findViolations(graph: ImportGraph, rules: readonly Rule[] = RULES): string[] {
  const violations: string[] = [];
  for (const [file, imports] of graph) {
    for (const rule of rules) {
      if (!file.startsWith(rule.from)) continue;
      for (const target of imports) {
        const local = target.startsWith('src/');
        const broken =
          (local && rule.forbid?.some((folder) => target.startsWith(folder))) ||
          (rule.only !== undefined &&
            (local ? !rule.only.some((allowed) => target.startsWith(allowed)) : IO_MODULES.test(target)));
        if (broken) violations.push(`${file} → ${target}: ${rule.why}`);
      }
    }
  }
  return violations;
}

/** Imports from one subfolder of `parent` into another, as `file → import`. */
function findCrossImports(graph: ImportGraph, parent: string): string[] {
  const folderOf = (path: string): string | undefined => {
    if (!path.startsWith(parent)) return undefined;
    const rest = path.slice(parent.length).split('/');
    return rest.length > 1 ? rest[0] : undefined;
  };
  const crossings: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const target of imports) {
      const to = folderOf(target);
      if (to !== undefined && to !== from) crossings.push(`${file} → ${target}`);
    }
  }
  return crossings;
}

/** The files over MAX_LINES lines, with their counts. */
function filesOverCap(files: readonly { file: string; text: string }[]): { file: string; lines: number }[] {
  return files
    .map(({ file, text }) => ({ file, lines: text.split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES);
}

/** Circles between the subfolders of `parent`, each as `a → b → … → a`. */
function findFolderCircles(graph: ImportGraph, parent: string): string[] {
  const folderOf = (path: string): string | undefined => {
    if (!path.startsWith(parent)) return undefined;
    const rest = path.slice(parent.length).split('/');
    return rest.length > 1 ? rest[0] : undefined;
  };
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const target of imports) {
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)?.add(to);
    }
  }
  const circles: string[] = [];
  // A depth-first walk: an edge back to a folder on the current path closes a circle.
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (folder: string): void => {
    state.set(folder, 'open');
    path.push(folder);
    for (const next of edges.get(folder) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(folder, 'done');
  };
  for (const folder of [...edges.keys()].sort()) if (state.get(folder) === undefined) visit(folder);
  return circles;
}

describe('layers (decision 0008)', () => {
  const graph = readImportGraph(ROOT, 'src');

  it('reads the imports of every source file', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    const run = graph.get('src/gateway/services/use-cases/run-chat.ts') ?? [];
    assert.ok(run.includes('src/gateway/services/run/request-run.ts'), run.join(', '));
  });

  it('no import breaks a layer rule', () => {
    assert.deepEqual(findViolations(graph), []);
  });

  for (const parent of ACYCLIC) {
    it(`no circle between the folders of ${parent}`, () => {
      assert.deepEqual(findFolderCircles(graph, parent), []);
    });
  }

  for (const parent of SEALED) {
    it(`no folder of ${parent} imports another`, () => {
      assert.deepEqual(findCrossImports(graph, parent), []);
    });
  }

  it(`no file of src/ is over ${MAX_LINES} lines`, () => {
    const files = listSources(ROOT, 'src').map((file) => ({
      file,
      text: readFileSync(join(ROOT, file), 'utf8'),
    }));
    assert.ok(files.length > 100);
    assert.deepEqual(filesOverCap(files), []);
    // The count is of lines: a file one past the cap is named, one at it is not.
    const at = `${'x\n'.repeat(MAX_LINES)}`;
    assert.deepEqual(
      filesOverCap([
        { file: 'src/at-the-cap.ts', text: at },
        { file: 'src/past-it.ts', text: `${at}y\n` },
      ]),
      [{ file: 'src/past-it.ts', lines: MAX_LINES + 1 }],
    );
  });

  it('fails on a deliberately wrong import of each kind', () => {
    const wrong: ImportGraph = new Map([
      ['src/gateway/domain/pricing.ts', ['src/gateway/providers/provider.ts', 'node:fs']],
      ['src/gateway/services/use-cases/run-chat.ts', ['src/gateway/http/typed-instance.ts']],
      ['src/gateway/http/start-request-run.ts', ['src/gateway/doors/serve-chat.ts']],
      ['src/gateway/providers/openai/openai-adapter.ts', ['src/gateway/services/run/request-run.ts']],
      ['src/gateway/tokenizer/tokenizer-thread.ts', ['src/gateway/services/run/request-run.ts']],
      ['src/storage/redis/redis-provider-health.ts', ['src/gateway/health/circuit-breaker.ts']],
      ['src/site/site-app.ts', ['src/gateway/gateway-app.ts']],
      ['src/gateway/gateway-app.ts', ['src/site/site-app.ts']],
      ['src/platform/errors.ts', ['src/storage/ports.ts']],
      [
        'src/gateway/doors/openai/openai-door.ts',
        ['src/gateway/providers/provider.ts', 'src/storage/ports.ts'],
      ],
    ]);
    const found = findViolations(wrong);
    assert.equal(found.length, 12, found.join('\n'));
    const circle: ImportGraph = new Map([
      ['src/site/mcp/a.ts', ['src/site/openapi/b.ts']],
      ['src/site/openapi/b.ts', ['src/site/well-known/c.ts']],
      ['src/site/well-known/c.ts', ['src/site/mcp/a.ts']],
    ]);
    assert.deepEqual(findFolderCircles(circle, 'src/site/'), ['mcp → openapi → well-known → mcp']);
    const doors: ImportGraph = new Map([
      ['src/gateway/doors/responses/responses-chat.ts', ['src/gateway/doors/openai/to-openai-completion.ts']],
      ['src/gateway/doors/openai/openai-door.ts', ['src/gateway/doors/cost-header.ts']],
      ['src/gateway/doors/serve-chat.ts', ['src/gateway/doors/native/native-chat.ts']],
    ]);
    assert.deepEqual(findCrossImports(doors, 'src/gateway/doors/'), [
      'src/gateway/doors/responses/responses-chat.ts → src/gateway/doors/openai/to-openai-completion.ts',
    ]);
  });
});
