/**
 * Start-up (loading modules, building the routes' validators and serialisers, reading the site's
 * content) allocates fast enough for V8 to grow the young generation to its maximum
 * (`--max-semi-space-size`), and an idle process never shrinks it again: about 25 MB of RSS for
 * the gateway alone and 35 MB for both surfaces, held for nothing (docs/performance.md). One
 * last-resort collection once start-up is done (before the servers listen, so no request waits
 * for it) collects that garbage and shrinks the young generation back to its initial size.
 *
 * V8 offers this only through `gc()`, which `--expose-gc` (in the start script) makes global;
 * started without it, this does nothing and answers false.
 */
export function reclaimStartUpMemory(): boolean {
  const gc = globalThis.gc;
  if (typeof gc !== 'function') return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
