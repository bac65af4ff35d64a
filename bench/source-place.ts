import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a frame of the built bundle came from: its `src/…` file and line, read through the
 * bundle's source map (dist/*.js.map, written by scripts/build-server.ts). A profile of
 * `dist/main.js` names minified chunks (`dist/chunk-GZIT76KE.js`); this names the gateway's own
 * files and the packages esbuild folded in. Maps are read once per bundle file.
 */
export class SourcePlaces {
  readonly #maps = new Map<string, SourceMap | null>();

  /** `src/gateway/doors/serve-chat.ts:120`, `node_modules/fastify/…:40`, or undefined when there is no map. */
  find(url: string, lineNumber: number, columnNumber: number): { file: string; line: number } | undefined {
    if (!url.startsWith('file://') || !url.includes('/dist/')) return undefined;
    let map = this.#maps.get(url);
    if (map === undefined) {
      const path = `${fileURLToPath(url)}.map`;
      map = existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8'))) : null;
      this.#maps.set(url, map);
    }
    if (map === null) return undefined;
    const entry = map.findEntry(lineNumber, columnNumber);
    if (!('originalSource' in entry)) return undefined;
    const source = entry.originalSource.replace(/^(\.\.\/)+/, '');
    const modules = source.lastIndexOf('node_modules/');
    return { file: modules >= 0 ? source.slice(modules) : source, line: entry.originalLine + 1 };
  }
}
