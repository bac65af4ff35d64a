import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardSettings } from '../../config/guardrail-settings.ts';
import { PERSONAL_DATA_TYPES, SECRET_TYPES } from './built-in-detectors.ts';
import { runDetectorGuards } from './check-texts.ts';
import { compileGuards } from './compile-guards.ts';
import { MATCHES } from './detectors.test.ts';
import { GuardScanner } from './guard-scanner.ts';
import { OFF_THREAD_CHARS } from './scan-thread.ts';

const SETTINGS = [
  { name: 'secrets', type: 'secrets', phases: ['input'], action: 'mask', detectors: SECRET_TYPES },
  { name: 'pii', type: 'pii', phases: ['input'], action: 'mask', detectors: PERSONAL_DATA_TYPES },
  { name: 'words', type: 'words', phases: ['input'], action: 'block', words: ['falcon'] },
  {
    name: 'hook',
    type: 'webhook',
    phases: ['input'],
    action: 'mask',
    url: 'http://127.0.0.1:9/',
    headers: { authorization: 'Bearer x' },
    timeoutMs: 100,
    failureMode: 'open',
    maxResponseBytes: 4096,
  },
] as unknown as GuardSettings[];
const GUARDS = compileGuards(SETTINGS).filter((guard) => guard.detector !== undefined);
const MASKERS = GUARDS.slice(0, 2);

/** A large agent prompt: filler with every built-in detector's values spread through it. */
function largeTexts(): string[] {
  const values = Object.values(MATCHES).flat();
  const filler = 'Line 7 of the notes, 2026-12-07, order 100234, see the module. '.repeat(400);
  const text = values.map((value) => `${filler} ${value} `).join('');
  assert.ok(text.length > OFF_THREAD_CHARS * 2);
  return [text, 'a small text with AKIAIOSFODNN7EXAMPLE in it'];
}

describe('the guardrails scan thread', () => {
  it('scans large texts on the thread, with the verdict the event loop would give', async () => {
    const thread = new GuardScanner(SETTINGS);
    try {
      const texts = largeTexts();
      const pending = thread.scan('input', MASKERS, texts, 'app-a');
      assert.ok(pending instanceof Promise, 'a large scan is answered later');
      assert.equal(thread.threadRunning, true);
      // The loop is free while the thread reads: a turn of it comes before the verdict.
      let turned = false;
      setImmediate(() => {
        turned = true;
      });
      const verdict = await pending;
      assert.equal(turned, true);
      assert.deepEqual(verdict, runDetectorGuards('input', MASKERS, texts));
      assert.equal(verdict.changed, true);
      for (const value of Object.values(MATCHES).flat())
        assert.ok(!verdict.texts[0]?.includes(value), 'every value masked');

      // The same texts again (an agent's next turn): every long text's outcome is kept, so the
      // answer comes at once, without the thread, and is the same; a new text is read.
      const again = thread.scan('input', MASKERS, texts, 'app-a');
      assert.ok(!(again instanceof Promise), 'a known text is not scanned again');
      assert.deepEqual(again, verdict);
      const grown = [...texts, `${texts[0]} and a new line with carol@example.org`];
      const next = await thread.scan('input', MASKERS, grown, 'app-a');
      assert.deepEqual(next, runDetectorGuards('input', MASKERS, grown));
      assert.match(next.texts[2] ?? '', /new line with \[REDACTED:EMAIL\]$/);
    } finally {
      await thread.close();
    }
  });

  it('reuses a text’s outcome for the app that sent it only: another app’s same text is scanned again', async () => {
    const scanner = new GuardScanner(SETTINGS);
    try {
      const texts = largeTexts();
      const first = await scanner.scan('input', MASKERS, texts, 'app-a');
      const again = scanner.scan('input', MASKERS, texts, 'app-a');
      assert.ok(!(again instanceof Promise), 'the same app: answered from what was kept');
      const other = scanner.scan('input', MASKERS, texts, 'app-b');
      assert.ok(other instanceof Promise, 'another app: scanned, not answered from app-a’s outcome');
      assert.deepEqual(await other, first);
    } finally {
      await scanner.close();
    }
  });

  it('never gives a text the outcome of another that looks alike (same length, same samples)', () => {
    const scanner = new GuardScanner(SETTINGS);
    const clean = `${'a'.repeat(480)} ${'b'.repeat(20)} ${'c'.repeat(1500)}`;
    const secret = `${'a'.repeat(480)} ${'AKIAIOSFODNN7EXAMPLE'} ${'c'.repeat(1500)}`;
    assert.equal(clean.length, secret.length);
    const first = scanner.scan('input', MASKERS, [clean], 'app-a');
    assert.ok(!(first instanceof Promise));
    assert.equal(first.changed, false);
    const second = scanner.scan('input', MASKERS, [secret], 'app-a');
    assert.ok(!(second instanceof Promise));
    assert.equal(second.changed, true);
    assert.ok(second.texts[0]?.includes('[REDACTED:AWS_ACCESS_KEY]'));
    // And each is still known as itself.
    assert.deepEqual(scanner.scan('input', MASKERS, [secret], 'app-a'), second);
    assert.deepEqual(scanner.scan('input', MASKERS, [clean], 'app-a'), first);
  });

  it('keeps outcomes per set of guards: another stretch of guards reads the text again', () => {
    const scanner = new GuardScanner(SETTINGS);
    const text = `${'plain words '.repeat(200)} falcon AKIAIOSFODNN7EXAMPLE`;
    const masked = scanner.scan('input', MASKERS, [text], 'app-a');
    assert.ok(!(masked instanceof Promise));
    assert.equal(masked.blockedBy, undefined);
    const blocked = scanner.scan('input', GUARDS, [text], 'app-a');
    assert.ok(!(blocked instanceof Promise));
    assert.equal(blocked.blockedBy, 'words');
    assert.deepEqual(
      blocked.events.map((event) => event.guard),
      ['secrets', 'words'],
    );
  });

  it('answers a block and what acted, and leaves texts nothing matched as they were', async () => {
    const thread = new GuardScanner(SETTINGS);
    try {
      const clean = 'Nothing to see here, only prose. '.repeat(4000);
      const untouched = await thread.scan('input', GUARDS, [clean], 'app-a');
      assert.deepEqual(untouched, { texts: [clean], changed: false, blockedBy: undefined, events: [] });
      const blocked = await thread.scan('output', GUARDS, [`${clean} the falcon flies ${clean}`], 'app-a');
      assert.equal(blocked.blockedBy, 'words');
      assert.deepEqual(blocked.events, [{ guard: 'words', phase: 'output', action: 'block' }]);
    } finally {
      await thread.close();
    }
  });

  it('scans small texts on the event loop without starting a thread', () => {
    const thread = new GuardScanner(SETTINGS);
    const verdict = thread.scan('input', MASKERS, ['key AKIAIOSFODNN7EXAMPLE'], 'app-a');
    assert.ok(!(verdict instanceof Promise));
    assert.deepEqual(verdict.texts, ['key [REDACTED:AWS_ACCESS_KEY]']);
    assert.equal(thread.threadRunning, false);
  });

  it('scans on the event loop when the thread dies', async () => {
    const dying = new GuardScanner(SETTINGS, {
      workerUrl: new URL('../../../test/helpers/dying-json-worker.ts', import.meta.url),
    });
    const texts = largeTexts();
    const verdict = await dying.scan('input', MASKERS, texts, 'app-a');
    assert.deepEqual(verdict, runDetectorGuards('input', MASKERS, texts));
    await dying.close();
  });
});
