/**
 * Splits what a Redis client sends into command names, across chunk boundaries: RESP arrays of
 * bulk strings (`*2\r\n$3\r\nGET\r\n$1\r\nk\r\n`), which is all ioredis sends. Enough for a test
 * relay that answers commands itself; not a general RESP parser.
 */
export class RespCommandReader {
  #buffer = Buffer.alloc(0);

  /** The names (upper case) of the commands completed by `chunk`, in order. */
  push(chunk: Buffer): string[] {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const names: string[] = [];
    for (;;) {
      const parsed = this.#readCommand();
      if (parsed === undefined) break;
      names.push(parsed.name);
      this.#buffer = this.#buffer.subarray(parsed.end);
    }
    return names;
  }

  #readCommand(): { name: string; end: number } | undefined {
    const header = this.#line(0);
    if (header === undefined) return undefined;
    if (!header.text.startsWith('*')) throw new Error(`not a RESP array: ${header.text}`);
    let at = header.next;
    let name = '';
    for (let i = 0; i < Number(header.text.slice(1)); i++) {
      const length = this.#line(at);
      if (length === undefined) return undefined;
      const size = Number(length.text.slice(1));
      const end = length.next + size + 2;
      if (this.#buffer.length < end) return undefined;
      if (i === 0) name = this.#buffer.toString('utf8', length.next, length.next + size).toUpperCase();
      at = end;
    }
    return { name, end: at };
  }

  #line(from: number): { text: string; next: number } | undefined {
    const end = this.#buffer.indexOf('\r\n', from);
    return end === -1 ? undefined : { text: this.#buffer.toString('utf8', from, end), next: end + 2 };
  }
}
