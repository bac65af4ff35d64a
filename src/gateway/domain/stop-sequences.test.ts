import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutAtStopSequence } from './stop-sequences.ts';

describe('cutAtStopSequence', () => {
  it('cuts before the earliest of several sequences, whatever their order in the list', () => {
    assert.deepEqual(cutAtStopSequence('one. two; three', [';', '.']), { text: 'one', matched: '.' });
  });

  it('leaves the text whole when no sequence occurs, or none is given', () => {
    assert.deepEqual(cutAtStopSequence('one two', ['three']), { text: 'one two' });
    assert.deepEqual(cutAtStopSequence('one two', undefined), { text: 'one two' });
  });

  it('prefers the shorter of two starting at the same place, and ignores empty ones', () => {
    assert.deepEqual(cutAtStopSequence('a##b', ['###', '##', '']), { text: 'a', matched: '##' });
    assert.deepEqual(cutAtStopSequence('a##b', ['##', '#']), { text: 'a', matched: '#' });
  });

  it('a sequence at the very start leaves an empty answer', () => {
    assert.deepEqual(cutAtStopSequence('You said', ['You']), { text: '', matched: 'You' });
  });
});
