import { readFileSync } from 'node:fs';

/**
 * Who calls V8's runtime functions, from a callgrind dump taken with `--separate-callers=3` of a
 * node started with `--perf-basic-prof` (bench/instructions.ts --runtime-callers). A runtime
 * function (`Runtime_*`) is the slow way V8 takes when the compiled code cannot do a thing
 * itself, e.g. defining a property after a spread in an object literal; callgrind names the
 * compiled JavaScript only by address, and V8's perf map (/tmp/perf-<pid>.map: start, size and
 * name of each piece of code it compiled) gives the address its function's name.
 *
 * The dump's format (valgrind's "Callgrind Format Specification"): `fn=(id) name` starts a
 * function's lines, `(id)` alone repeats a name given before; `cfn=` names a callee, and the
 * `calls=<count> <target>` line after it is followed by one line of the call's inclusive cost.
 * With --separate-callers=3 a name is `callee'caller'caller's caller'…`.
 */

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** V8's perf map: `<start hex> <size hex> <name>` a line, as `--perf-basic-prof` writes it. */
export function readPerfMap(file: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    if (first < 0 || second < 0) continue;
    const start = Number.parseInt(line.slice(0, first), 16);
    const size = Number.parseInt(line.slice(first + 1, second), 16);
    ranges.push({ start, end: start + size, name: line.slice(second + 1) });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

function nameAt(ranges: readonly CodeRange[], address: number): string | undefined {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle] as CodeRange;
    if (address < range.start) high = middle - 1;
    else if (address >= range.end) low = middle + 1;
    else return range.name;
  }
  return undefined;
}

export interface RuntimeUse {
  runtime: string;
  /** Instructions in it and what it called, per request. */
  instructions: number;
  calls: number;
  /** The JavaScript function that entered the runtime (through V8's CEntry), with its share. */
  callers: { name: string; instructions: number; calls: number }[];
}

/** The runtime function a context name starts with, entered from compiled code; else undefined. */
function runtimeEntered(context: string): { runtime: string; chain: string[] } | undefined {
  const parts = context.split("'");
  const runtime = /(Runtime_\w+)\(/.exec(parts[0] ?? '')?.[1];
  // Only calls made from JavaScript through CEntry: a runtime function another one calls is
  // counted in its caller's inclusive cost already.
  if (runtime === undefined || !parts[1]?.startsWith('Builtins_CEntry')) return undefined;
  return { runtime, chain: parts.slice(2) };
}

/**
 * The runtime functions entered from JavaScript in one thread's dump, most instructions first,
 * each with the JavaScript that entered it (per request: the dump's counts over `requests`).
 */
export function runtimeCallers(
  dumpFile: string,
  ranges: readonly CodeRange[],
  requests: number,
): RuntimeUse[] {
  const names = new Map<string, string>();
  const uses = new Map<
    string,
    { instructions: number; calls: number; callers: Map<string, [number, number]> }
  >();
  let callee: string | undefined;
  let pendingCalls = 0;
  let costLineNext = false;
  for (const line of readFileSync(dumpFile, 'utf8').split('\n')) {
    if (costLineNext) {
      costLineNext = false;
      const entered = callee === undefined ? undefined : runtimeEntered(callee);
      if (entered === undefined) continue;
      const cost = Number(line.split(' ')[1] ?? 0);
      const use = uses.get(entered.runtime) ?? { instructions: 0, calls: 0, callers: new Map() };
      use.instructions += cost;
      use.calls += pendingCalls;
      const address = entered.chain.find((part) => part.startsWith('0x'));
      const caller =
        (address === undefined ? undefined : nameAt(ranges, Number.parseInt(address, 16))) ??
        entered.chain.join(' < ');
      const sum = use.callers.get(caller) ?? [0, 0];
      use.callers.set(caller, [sum[0] + cost, sum[1] + pendingCalls]);
      uses.set(entered.runtime, use);
      continue;
    }
    const named = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named !== null) {
      const [, kind, id = '', name] = named;
      if (name !== undefined) names.set(id, name);
      if (kind === 'cfn') callee = names.get(id);
      continue;
    }
    if (line.startsWith('calls=')) {
      pendingCalls = Number(line.slice(6).split(' ')[0]);
      costLineNext = true;
    }
  }
  return [...uses]
    .map(([runtime, use]) => ({
      runtime,
      instructions: use.instructions / requests,
      calls: use.calls / requests,
      callers: [...use.callers]
        .map(([name, [instructions, calls]]) => ({
          name,
          instructions: instructions / requests,
          calls: calls / requests,
        }))
        .sort((a, b) => b.instructions - a.instructions),
    }))
    .sort((a, b) => b.instructions - a.instructions);
}

/** The table bench/instructions.ts prints: the top runtime functions and, for each, its top callers. */
export function formatRuntimeCallers(uses: readonly RuntimeUse[], top = 8, callersEach = 5): string {
  const lines = ['runtime functions entered from JavaScript on the main thread, per request:'];
  for (const use of uses.slice(0, top)) {
    lines.push(
      `${(use.instructions / 1000).toFixed(1).padStart(7)}k instructions ${use.calls.toFixed(2).padStart(7)} calls  ${use.runtime}`,
    );
    for (const caller of use.callers.slice(0, callersEach))
      lines.push(
        `         ${(caller.instructions / 1000).toFixed(1).padStart(7)}k ${caller.calls.toFixed(2).padStart(7)} calls  from ${caller.name}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
