/**
 * The series of one metric family by label values: a tree of Maps, one level per label, so that
 * finding a series reads each value once and builds nothing. A key made by joining the values
 * (`values.join(sep)`) cost a new string and its hash on every update: a gateway request updates
 * half a dozen series, and the joins were about 1 KiB of garbage a request (bench/allocations.ts).
 *
 * At most `maxSeries` series: once it holds that many, label values it has not seen share one
 * overflow series (every label `other`), so a caller cannot grow it without bound.
 */
export class SeriesIndex<S> {
  readonly #root = new Map<string, unknown>();
  readonly #all: S[] = [];
  readonly #depth: number;
  readonly #maxSeries: number;
  readonly #create: (values: readonly string[]) => S;
  /** The series of a family without labels. */
  #only: S | undefined;
  #overflow: S | undefined;

  constructor(labelCount: number, maxSeries: number, create: (values: readonly string[]) => S) {
    this.#depth = labelCount;
    this.#maxSeries = maxSeries;
    this.#create = create;
  }

  /** Every series, in the order first used (the overflow series last among them when it exists). */
  values(): readonly S[] {
    return this.#all;
  }

  get size(): number {
    return this.#all.length;
  }

  /** The series of these label values (one per label), created on first use. */
  series(values: readonly string[]): S {
    if (this.#depth === 0) {
      this.#only ??= this.#add(values);
      return this.#only;
    }
    return this.#find(values, this.#all.length < this.#maxSeries) ?? this.#overflowSeries();
  }

  /** The series at `values`; when it is missing, a new one if `create`, else undefined. */
  #find(values: readonly string[], create: boolean): S | undefined {
    let level = this.#root;
    const last = this.#depth - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i] ?? '';
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        if (!create) return undefined;
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = values[last] ?? '';
    const known = level.get(value) as S | undefined;
    if (known !== undefined || !create) return known;
    const series = this.#add(values);
    level.set(value, series);
    return series;
  }

  /** One series for every label set past the cap: the one labelled `other` throughout, made once. */
  #overflowSeries(): S {
    this.#overflow ??= this.#find(
      Array.from({ length: this.#depth }, () => OVERFLOW),
      true,
    ) as S;
    return this.#overflow;
  }

  #add(values: readonly string[]): S {
    const series = this.#create(values);
    this.#all.push(series);
    return series;
  }
}

/** Every label of the overflow series. */
export const OVERFLOW = 'other';
