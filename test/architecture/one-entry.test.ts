import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Contract 6.2, read from the sources: one place starts a request's run and one closes it (the
 * MCP door's tool calls included), and no door folder picks a chat use case: every door's chat
 * goes through the one entry at the doors' root (serveChat), which chooses whole or streamed, the
 * response cache and the lane. Production files only; unit tests beside their source are exempt.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOORS = 'src/gateway/doors/';
const RUN_EDGE = 'src/gateway/doors/serve-run.ts';

/** The use cases: the chat, its stream, the JSON one, the lane's, embeddings, and the response cache's runs of them. */
const USE_CASES =
  /services\/(use-cases\/(run-chat|run-chat-stream|run-json|run-pass-through|run-embed)|response-cache\/run-cached-[a-z-]+)\.ts$/;

/** A value import (not `import type`) and what it names: its specifier. */
const VALUE_IMPORT = /(?:^|\n)\s*import\s+(?!type\b)[^;]*?\bfrom\s*['"]([^'"]+)['"]/g;

function productionSources(folder: string): { file: string; source: string }[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .map((file) => ({ file, source: readFileSync(join(ROOT, file), 'utf8') }));
}

/** Door files under a door's own folder that import a chat use case's code. */
function doorsPickingUseCases(files: readonly { file: string; source: string }[]): string[] {
  const found: string[] = [];
  for (const { file, source } of files) {
    if (!file.startsWith(DOORS) || !file.slice(DOORS.length).includes('/')) continue;
    for (const match of source.matchAll(VALUE_IMPORT))
      if (USE_CASES.test(match[1] as string)) found.push(`${file} → ${match[1]}`);
  }
  return found;
}

/** Files other than the run's edge that start a run (call startRequestRun) or close one (`.close(` on a run). */
function runEdgesElsewhere(files: readonly { file: string; source: string }[]): string[] {
  const found: string[] = [];
  for (const { file, source } of files) {
    if (file === RUN_EDGE || file === 'src/gateway/http/start-request-run.ts') continue;
    if (/\bstartRequestRun\s*\(/.test(source)) found.push(`${file} starts a run`);
    // The one maker of runs is start-request-run.ts, which only serve-run.ts calls.
    if (/\bnew\s+RequestRun\s*\(/.test(source)) found.push(`${file} makes a run`);
    if (/\b(run|#run|runs)\.close\s*\(/.test(source)) found.push(`${file} closes a run`);
    // A door's routes call an entry (serveChat, serveEmbed, serveJson); an MCP POST's runs, serveRuns.
    if (file.slice(DOORS.length).includes('/') && /\bserveRun\s*\(/.test(source))
      found.push(`${file} runs a use case itself`);
  }
  return found;
}

describe('one chat entry and one run edge (contract 6.2)', () => {
  const files = productionSources('src/gateway/');

  it('reads the doors and the edge', () => {
    assert.ok(files.some(({ file }) => file === RUN_EDGE));
    assert.ok(files.filter(({ file }) => file.startsWith(DOORS)).length > 50);
  });

  it("no door folder imports a use case (the entries at the doors' root choose it)", () => {
    assert.deepEqual(doorsPickingUseCases(files), []);
  });

  it('only serve-run.ts starts and closes runs, and no door folder calls serveRun', () => {
    assert.deepEqual(runEdgesElsewhere(files), []);
    const edge = files.find(({ file }) => file === RUN_EDGE)?.source ?? '';
    assert.match(edge, /startRequestRun\(/);
    assert.match(edge, /run\.close\(/);
  });

  it('fails on a door that picks a use case, or starts or closes a run itself', () => {
    const wrong = [
      {
        file: 'src/gateway/doors/anthropic/serve-messages.ts',
        source:
          "import type { ChatAnswer } from '../../services/use-cases/run-chat.ts';\nimport { runPassThrough } from '../../services/use-cases/run-pass-through.ts';\nimport { runCachedPassThrough } from '../../services/response-cache/run-cached-pass-through.ts';\n",
      },
      {
        file: 'src/gateway/doors/mcp/answer-tool-call.ts',
        source: 'const run = startRequestRun(request, reply, deps, START);\nawait run.close(failure);\n',
      },
      {
        file: 'src/gateway/doors/native/native-door.ts',
        source:
          'return serveRun(request, reply, deps, start, async (run) => sendAnswer(reply, run, answer));\n',
      },
      {
        file: 'src/gateway/doors/serve-chat.ts',
        source: "import { runChat } from '../services/use-cases/run-chat.ts';\n",
      },
      {
        file: 'src/gateway/batches/batch-runner.ts',
        source: 'const run = new RequestRun(deps, init);\n',
      },
    ];
    assert.deepEqual(doorsPickingUseCases(wrong), [
      'src/gateway/doors/anthropic/serve-messages.ts → ../../services/use-cases/run-pass-through.ts',
      'src/gateway/doors/anthropic/serve-messages.ts → ../../services/response-cache/run-cached-pass-through.ts',
    ]);
    assert.deepEqual(runEdgesElsewhere(wrong), [
      'src/gateway/doors/mcp/answer-tool-call.ts starts a run',
      'src/gateway/doors/mcp/answer-tool-call.ts closes a run',
      'src/gateway/doors/native/native-door.ts runs a use case itself',
      'src/gateway/batches/batch-runner.ts makes a run',
    ]);
  });
});
