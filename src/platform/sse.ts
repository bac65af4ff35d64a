/**
 * Server-sent events framing (WHATWG HTML, "Server-sent events"). Every event the gateway
 * writes goes through here, so the framing rules live in one place.
 */
export function encodeEvent(event: string, data: unknown): string {
  // JSON.stringify never emits a raw newline, so the data fits one `data:` line.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: ignored by clients, keeps proxies from closing an idle stream. */
export function encodeComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Stops nginx and similar proxies from buffering the stream.
  'x-accel-buffering': 'no',
} as const;
