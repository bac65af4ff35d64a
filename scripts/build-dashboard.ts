import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles the dashboard (dashboard/main.ts and Chart.js from node_modules) into
 * dist/dashboard/dashboard.js, and copies its stylesheet beside it. The page loads nothing else:
 * no CDN, so it works with no internet. Run by scripts/build.ts (and so by `npm start`) and
 * before the tests.
 */
export async function buildDashboard(): Promise<void> {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const out = `${root}dist/dashboard`;
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [`${root}dashboard/main.ts`],
    outfile: `${out}/dashboard.js`,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  });
  copyFileSync(`${root}dashboard/dashboard.css`, `${out}/dashboard.css`);
}

if (import.meta.url === `file://${process.argv[1]}`) await buildDashboard();
