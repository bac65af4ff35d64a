import { buildDashboard } from './build-dashboard.ts';
import { buildServer } from './build-server.ts';
import { writePriceTable } from './extract-prices.ts';

/**
 * `npm run build` (and `npm start` before it starts): bundles the server into dist/
 * (build-server.ts) and the dashboard into dist/dashboard/ (build-dashboard.ts). Production runs
 * the JavaScript: loading TypeScript through Node's type stripper keeps its WebAssembly compiler
 * in memory for the life of the process (about 25 MiB of RSS; decision 0005). Type errors are
 * `npm run typecheck`'s (and `npm test`'s) to find: esbuild strips the types without reading them.
 */

// The price book's compact tables come from the installed pricing package (see extract-prices.ts).
if (writePriceTable()) console.log('price tables regenerated from the installed @pydantic/genai-prices');
try {
  await buildServer();
} catch {
  console.error('build failed: esbuild reported the errors above');
  process.exit(1);
}
await buildDashboard();
