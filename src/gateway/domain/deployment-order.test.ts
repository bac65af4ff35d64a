import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderByLatency, orderBySession, orderByWeight, shuffle } from './deployment-order.ts';

/** A seeded generator (mulberry32), so the distributions below are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const named = (...names: string[]) => names.map((name) => ({ key: `provider-a/${name}`, name }));

describe('orderByWeight', () => {
  it('puts each item first in proportion to its weight, and a weight of 0 last', () => {
    const items = [
      { name: 'a', weight: 1 },
      { name: 'b', weight: 3 },
      { name: 'standby', weight: 0 },
    ];
    const random = seeded(7);
    const first = { a: 0, b: 0, standby: 0 };
    const draws = 40_000;
    for (let i = 0; i < draws; i++) {
      const order = orderByWeight(items, random);
      first[order[0]?.name as keyof typeof first]++;
      assert.equal(order[2]?.name, 'standby');
    }
    assert.ok(Math.abs(first.a / draws - 0.25) < 0.01, String(first.a / draws));
    assert.ok(Math.abs(first.b / draws - 0.75) < 0.01, String(first.b / draws));
  });

  it('leaves nothing out and never changes its input', () => {
    const items = [{ weight: 2 }, { weight: 1 }, { weight: 5 }];
    const copy = structuredClone(items);
    assert.equal(new Set(orderByWeight(items, Math.random)).size, 3);
    assert.deepEqual(items, copy);
  });
});

describe('orderBySession (rendezvous hashing)', () => {
  const five = named('a', 'b', 'c', 'd', 'e');
  const sessions = Array.from({ length: 5_000 }, (_, i) => `app\u0000session-${i}`);

  it('gives a session the same order every time, whatever the order of the items', () => {
    for (const session of sessions.slice(0, 200)) {
      const once = orderBySession(five, session).map((d) => d.name);
      assert.deepEqual(
        orderBySession([...five].reverse(), session).map((d) => d.name),
        once,
      );
    }
  });

  it('spreads sessions evenly over the items', () => {
    const firsts = new Map<string, number>();
    for (const session of sessions) {
      const first = orderBySession(five, session)[0]?.name as string;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    for (const count of firsts.values())
      assert.ok(Math.abs(count / sessions.length - 0.2) < 0.025, String(count));
  });

  it("moves only the lost item's sessions when one goes, each to its own second choice", () => {
    const without = five.filter((d) => d.name !== 'c');
    let moved = 0;
    for (const session of sessions) {
      const before = orderBySession(five, session).map((d) => d.name);
      const after = orderBySession(without, session)[0]?.name;
      if (before[0] === 'c') {
        moved++;
        assert.equal(after, before[1]);
      } else assert.equal(after, before[0], `session ${session} moved though its item stayed`);
    }
    assert.ok(moved > 800 && moved < 1_200, `${moved} of ${sessions.length} were on c`);
  });
});

describe('orderByLatency', () => {
  it('puts the unmeasured first, then the near-best in any order, then the slower ones, fastest first', () => {
    const scored = [
      { item: 'slow', scoreMs: 400 },
      { item: 'fast', scoreMs: 100 },
      { item: 'new', scoreMs: undefined },
      { item: 'close', scoreMs: 118 },
      { item: 'slower', scoreMs: 900 },
    ];
    const seen = new Set<string>();
    const random = seeded(3);
    for (let i = 0; i < 200; i++) {
      const order = orderByLatency(scored, random);
      assert.equal(order[0], 'new');
      assert.deepEqual(order.slice(3), ['slow', 'slower']);
      seen.add(order[1] as string);
    }
    assert.deepEqual(
      [...seen].sort(),
      ['close', 'fast'],
      'within 20 % (plus 5 ms) of the best, both go first',
    );
  });
});

describe('shuffle', () => {
  it('keeps every item', () => {
    assert.deepEqual(shuffle([1, 2, 3, 4], seeded(1)).sort(), [1, 2, 3, 4]);
  });
});
