import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDashboard } from './build-dashboard.ts';

/**
 * `npm run build` (and `npm start` before it starts): compiles src/ to dist/ with tsc, which also
 * rewrites the `.ts` import specifiers to `.js` and copies the plain-JS ledger worker, then copies
 * the SQL migrations, which tsc does not, and bundles the dashboard (build-dashboard.ts). Production runs the JavaScript: loading TypeScript through
 * Node's type stripper keeps its WebAssembly compiler in memory for the life of the process
 * (about 25 MiB of RSS; see docs/decisions/0005-production-runs-compiled-javascript.md).
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));

try {
  execFileSync(tsc, ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
} catch {
  console.error('build failed: tsc reported the errors above');
  process.exit(1);
}
cpSync(`${root}src/storage/migrations`, `${root}dist/storage/migrations`, { recursive: true });
await buildDashboard();
