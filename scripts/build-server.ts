import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));

/**
 * Bundles the server (src/main.ts and the packages it imports) into `outDir`: `main.js`, the
 * chunks that what loads on first use (the MCP SDK, the site, PostgreSQL, Redis, tracing, mail) is
 * split into, the workers of the ledger's writer and of the tokenizer (which alone loads o200k's
 * tables), and the SQL migrations beside them.
 *
 * One bundle rather than tsc's file per module: Node keeps a module record, its source text and
 * its compiled functions for each of the ~1,100 files an idle gateway loads (373 of them TypeBox's
 * alone), about 12 MiB of the idle RSS (docs/performance.md, decision 0011). Whitespace and syntax
 * are minified, identifiers are not, so that stack traces and logs name what the source names
 * (but for a top-level name two modules share, which esbuild suffixes); a linked source map lets
 * `node --enable-source-maps` show TypeScript positions. Not `keepNames`: it redefines `name` on
 * every function it creates, closures made per request included, which cost 20% more CPU per
 * chat request in the bench (117-122 against 98-102 µs).
 *
 * Everything in the bundle finds its files the same way from src/ and from dist/: the migrations
 * and the workers beside the code (`new URL('./…', import.meta.url)`: each worker is an entry point
 * of its own, the migrations are copied), the rest from the package root
 * (src/platform/package-root.ts).
 *
 * What a former build left and this one did not write (chunks of other contents, named by their
 * hash; tsc's per-module tree) is removed after the build, not before: a server still running from
 * this folder (`npm start` again from the same checkout) loads its late chunks on first use, and
 * the same code gives the same chunk names, so they are never missing.
 */
export async function buildServer(outDir = join(root, 'dist')): Promise<Metafile> {
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: {
      main: join(root, 'src/main.ts'),
      'ledger-writer-worker': join(root, 'src/storage/embedded/ledger-writer-worker.js'),
      'ledger-reader-worker': join(root, 'src/storage/embedded/ledger-reader-worker.js'),
      'tokenizer-worker': join(root, 'src/gateway/tokenizer/tokenizer-worker.ts'),
      'json-thread-worker': join(root, 'src/platform/json-thread/json-thread-worker.ts'),
      'guard-scan-worker': join(root, 'src/gateway/guardrails/guard-scan-worker.ts'),
    },
    outdir: outDir,
    // The metafile's paths are relative to this, whatever folder the build is started from.
    absWorkingDir: root,
    // Every chunk beside main.js, so that `import.meta.url` names the same folder in all of them.
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minifyWhitespace: true,
    minifySyntax: true,
    // undici stays a package of its own: the gateway loads its Agent from the package's files at
    // run time (upstream-http.ts), and a bundled copy imported with `import()` would expose only
    // a default export (it is CommonJS), not the named ones the site's webhook delivery reads.
    external: ['undici'],
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
    // The CommonJS packages in the bundle call `require` for Node's own modules, and a few read
    // `__dirname` (ioredis's friendly stacks, pino's transports, neither used here): each output
    // file gets them, for its own location.
    banner: {
      js: [
        "import { createRequire as createRequireForBundle } from 'node:module';",
        "import { fileURLToPath as fileURLToPathForBundle } from 'node:url';",
        'const require = createRequireForBundle(import.meta.url);',
        'const __filename = fileURLToPathForBundle(import.meta.url);',
        "const __dirname = fileURLToPathForBundle(new URL('.', import.meta.url));",
      ].join(' '),
    },
  });
  cpSync(join(root, 'src/storage/migrations'), join(outDir, 'migrations'), { recursive: true });
  const written = new Set(
    Object.keys(result.metafile.outputs).map((output) => relative(outDir, join(root, output))),
  );
  for (const entry of readdirSync(outDir)) {
    // The dashboard's bundle is built separately (build-dashboard.ts).
    if (entry === 'dashboard' || entry === 'migrations' || written.has(entry)) continue;
    rmSync(join(outDir, entry), { recursive: true, force: true });
  }
  return result.metafile;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildServer(process.argv[2]);
