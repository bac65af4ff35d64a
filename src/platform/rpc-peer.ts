/**
 * Calls and notices over a message channel between two processes (a cluster worker and its
 * primary), both ways: `call` waits for the other side's handler to answer, `notify` does not.
 * Messages carry `gw` so that anything else on the channel (cluster's own traffic) is left alone.
 */
export interface MessagePortLike {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
}

interface Wire {
  gw: 1;
  /** Present on a call and on its answer. */
  id?: number;
  op?: string;
  args?: unknown[];
  /** On an answer. */
  reply?: true;
  value?: unknown;
  error?: { name: string; message: string };
}

type Handler = (...args: never[]) => unknown;

/** A call the other side did not answer in time; the caller decides what that means. */
export class RpcTimeoutError extends Error {
  constructor(op: string, ms: number) {
    super(`no answer to ${op} within ${ms} ms`);
    this.name = 'RpcTimeoutError';
  }
}

/** An error thrown by the other side's handler, with its name kept (`AppExistsError` …). */
export class RemoteError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export class RpcPeer {
  readonly #port: MessagePortLike;
  readonly #handlers = new Map<string, Handler>();
  readonly #waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #next = 0;
  #closed = false;
  /** Notices of `notifyEach` waiting for the end of this event-loop turn, by op. */
  readonly #gathered = new Map<string, unknown[]>();
  #flushQueued = false;

  constructor(port: MessagePortLike) {
    this.#port = port;
    port.onMessage((message) => this.#receive(message));
  }

  /** Answers the other side's `op` calls and notices (a promise is awaited before answering). */
  handle<H extends Handler>(op: string, handler: H): void {
    this.#handlers.set(op, handler);
  }

  /** Calls `op` on the other side; rejects with RpcTimeoutError after `timeoutMs`. */
  call(op: string, args: unknown[], timeoutMs: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(new RpcTimeoutError(op, 0));
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new RpcTimeoutError(op, timeoutMs));
      }, timeoutMs);
      this.#waiting.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#send({ gw: 1, id, op, args });
    });
  }

  /** Tells the other side `op` without waiting for anything. */
  notify(op: string, args: unknown[]): void {
    if (!this.#closed) this.#send({ gw: 1, op, args });
  }

  /**
   * Tells the other side `op` about `item`, the items of one event-loop turn together: `op`'s
   * handler gets an array. A message on the channel costs a write here and a read, a wake and a
   * parse there (about four system calls in all), and a worker admits many requests a turn under
   * load. Anything else sent meanwhile first sends what is gathered, so the channel's order holds.
   */
  notifyEach(op: string, item: unknown): void {
    if (this.#closed) return;
    const items = this.#gathered.get(op);
    if (items === undefined) this.#gathered.set(op, [item]);
    else items.push(item);
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      this.#flush();
    });
  }

  /** The channel is gone: every call waiting fails now rather than at its timeout. */
  close(): void {
    this.#closed = true;
    for (const [id, waiting] of this.#waiting) {
      this.#waiting.delete(id);
      waiting.reject(new RpcTimeoutError('call', 0));
    }
  }

  #flush(): void {
    if (this.#gathered.size === 0) return;
    const gathered = [...this.#gathered];
    this.#gathered.clear();
    for (const [op, items] of gathered) this.#write({ gw: 1, op, args: [items] });
  }

  #send(message: Wire): void {
    this.#flush();
    this.#write(message);
  }

  #write(message: Wire): void {
    try {
      this.#port.send(message);
    } catch {
      // A channel closing under the send: the caller's timeout (or close()) answers it.
    }
  }

  #receive(message: unknown): void {
    if (typeof message !== 'object' || message === null || (message as Wire).gw !== 1) return;
    const wire = message as Wire;
    if (wire.reply === true) {
      const waiting = this.#waiting.get(wire.id as number);
      if (waiting === undefined) return;
      this.#waiting.delete(wire.id as number);
      if (wire.error === undefined) waiting.resolve(wire.value);
      else waiting.reject(new RemoteError(wire.error.name, wire.error.message));
      return;
    }
    const handler = this.#handlers.get(wire.op ?? '');
    const id = wire.id;
    if (handler === undefined) {
      if (id !== undefined) this.#answerError(id, new Error(`no handler for ${wire.op}`));
      return;
    }
    let result: unknown;
    try {
      result = handler(...((wire.args ?? []) as never[]));
    } catch (error) {
      if (id !== undefined) this.#answerError(id, error);
      return;
    }
    if (id === undefined) {
      if (result instanceof Promise) result.catch(() => {});
      return;
    }
    if (!(result instanceof Promise)) {
      this.#send({ gw: 1, id, reply: true, value: result });
      return;
    }
    result.then(
      (value) => this.#send({ gw: 1, id, reply: true, value }),
      (error: unknown) => this.#answerError(id, error),
    );
  }

  #answerError(id: number, error: unknown): void {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    this.#send({ gw: 1, id, reply: true, error: { name, message } });
  }
}
