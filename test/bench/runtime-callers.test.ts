import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readPerfMap, runtimeCallers } from '../../bench/runtime-callers.ts';

const RUNTIME =
  'v8::internal::Runtime_DefineKeyedOwnPropertyInLiteral(int, unsigned long*, v8::internal::Isolate*)';
const CENTRY = 'Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit';

// A dump as callgrind writes it with --separate-callers=3: a callee's name carries its callers.
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir
summary: 9000

fn=(1) ${CENTRY}'0x0000000000001010'Builtins_RunMicrotasks
0 10
cfn=(2) ${RUNTIME}'${CENTRY}'0x0000000000001010'Builtins_RunMicrotasks
calls=2 0
0 3000
fn=(3) ${CENTRY}'0x0000000000002040'0x0000000000001010
0 10
cfn=(4) ${RUNTIME}'${CENTRY}'0x0000000000002040'0x0000000000001010
calls=1 0
0 1000
fn=(5) v8::internal::Runtime_GetProperty(int, unsigned long*, v8::internal::Isolate*)'${CENTRY}'0x0000000000002040
0 5
cfn=(6) ${RUNTIME}'v8::internal::Runtime_GetProperty(int, unsigned long*, v8::internal::Isolate*)'${CENTRY}
calls=7 0
0 700
fn=(2)
0 2900
`;

describe('runtime functions by their JavaScript callers (bench/runtime-callers.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-callers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sums the calls made from compiled code through CEntry per request, each under the function its address falls in', () => {
    const dump = join(dir, 'callgrind.out');
    const map = join(dir, 'perf.map');
    writeFileSync(dump, DUMP);
    writeFileSync(
      map,
      "1000 100 JS:*'nextTick node:internal/process/task_queues:113:18\n2000 80 JS:+'toUsageRecord file:///dist/chunk.js:2:42368\n",
    );
    const [use, ...others] = runtimeCallers(dump, readPerfMap(map), 2);
    assert.equal(use?.runtime, 'Runtime_DefineKeyedOwnPropertyInLiteral');
    // The call from inside another runtime function is in that one's cost, not counted again.
    assert.equal(use?.instructions, 2000);
    assert.equal(use?.calls, 1.5);
    assert.deepEqual(use?.callers, [
      { name: "JS:*'nextTick node:internal/process/task_queues:113:18", instructions: 1500, calls: 1 },
      { name: "JS:+'toUsageRecord file:///dist/chunk.js:2:42368", instructions: 500, calls: 0.5 },
    ]);
    assert.deepEqual(others, [], 'Runtime_GetProperty was not entered from JavaScript here');
  });

  it('names a caller outside the map by its chain of callers', () => {
    const dump = join(dir, 'callgrind.out');
    writeFileSync(dump, DUMP);
    const [use] = runtimeCallers(dump, [], 1);
    assert.deepEqual(
      use?.callers.map((caller) => caller.name),
      ['0x0000000000001010 < Builtins_RunMicrotasks', '0x0000000000002040 < 0x0000000000001010'],
    );
  });
});
