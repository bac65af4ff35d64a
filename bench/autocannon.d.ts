// The part of autocannon's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
  }

  interface Result {
    requests: { total: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }

  interface Instance extends EventEmitter {
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, ms: number) => void,
    ): this;
    on(event: 'done', listener: (result: Result) => void): this;
  }

  function autocannon(options: Options, callback?: (error: Error | null, result: Result) => void): Instance;

  export default autocannon;
  export type { Instance, Options, Result };
}
