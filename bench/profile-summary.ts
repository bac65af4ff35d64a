import { readFileSync } from 'node:fs';
import { SourcePlaces } from './source-place.ts';

/** The parts of a V8 .cpuprofile (Chrome DevTools format) the summary reads. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  selfPct: number;
  /** Time in the function and everything it called (each sample counted once per function). */
  totalPct: number;
}

/**
 * Where a function lives, short: `dist/gateway/…` (the built gateway, as `npm start` runs it) or
 * `src/…`, `node_modules/<package>`, `node:<module>`.
 */
function place(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return `node_modules/${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const own = /\/(dist|src)\//.exec(url);
  if (own !== null) return url.slice(own.index + 1);
  return url.replace(/^file:\/\//, '');
}

/** Self and total time by function, and self time by file or package, heaviest first. */
export function summariseProfile(
  file: string,
  top = 40,
): {
  functions: ProfileLine[];
  inclusive: ProfileLine[];
  places: ProfileLine[];
  placesInclusive: ProfileLine[];
} {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const weight = new Map<number, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    weight.set(id, (weight.get(id) ?? 0) + delta);
    all += delta;
  });
  const sources = new SourcePlaces();
  const nameOf = new Map<number, { name: string; where: string }>();
  const named = (node: ProfileNode) => {
    let known = nameOf.get(node.id);
    if (known === undefined) {
      const frame = node.callFrame;
      const origin = sources.find(frame.url, frame.lineNumber, frame.columnNumber);
      const where = origin?.file ?? (frame.url === '' ? frame.functionName : place(frame.url));
      const line = origin?.line ?? frame.lineNumber + 1;
      known = {
        name: `${frame.functionName || '(anonymous)'} ${origin?.file ?? place(frame.url)}:${line}`,
        where,
      };
      nameOf.set(node.id, known);
    }
    return known;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const placeSelf = new Map<string, number>();
  const placeTotal = new Map<string, number>();
  for (const [id, time] of weight) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { name: key, where } = named(node);
    self.set(key, (self.get(key) ?? 0) + time);
    placeSelf.set(where, (placeSelf.get(where) ?? 0) + time);
    const seen = new Set<string>();
    const seenPlaces = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const ancestor = byId.get(at);
      if (ancestor === undefined) break;
      const { name, where: file } = named(ancestor);
      if (!seenPlaces.has(file)) {
        seenPlaces.add(file);
        placeTotal.set(file, (placeTotal.get(file) ?? 0) + time);
      }
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + time);
    }
  }
  const lines = (order: Map<string, number>) =>
    [...order.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name]) => ({
        name,
        selfPct: ((self.get(name) ?? placeSelf.get(name) ?? 0) / all) * 100,
        totalPct: ((total.get(name) ?? placeTotal.get(name) ?? 0) / all) * 100,
      }));
  return {
    functions: lines(self),
    inclusive: lines(total),
    places: lines(placeSelf),
    placesInclusive: lines(placeTotal),
  };
}
