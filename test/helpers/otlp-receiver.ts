import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A real OTLP/HTTP trace receiver: it accepts what the official exporter POSTs to /v1/traces,
 * protobuf (application/x-protobuf) or JSON (application/json), and decodes it with the field
 * numbers and names of opentelemetry-proto's trace.proto, into one shape for both encodings.
 */
export type AttributeValue = string | number | boolean | AttributeValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (SpanKind of trace.proto). */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the exports received. */
  contentTypes: string[];
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type']);
      contentTypes.push(type);
      headers.push(req.headers);
      if (req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (type.startsWith('application/json')) {
        spans.push(...fromJson(JSON.parse(body.toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        spans.push(...fromProtobuf(body));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    headers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// --- OTLP/JSON ---

type JsonAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
};
type JsonKeyValue = { key: string; value: JsonAnyValue };

function jsonValue(value: JsonAnyValue): AttributeValue | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined)
    return (value.arrayValue.values ?? []).map(jsonValue).filter((v) => v !== undefined);
  return undefined;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    const decoded = jsonValue(value);
    if (decoded !== undefined) attributes[key] = decoded;
  }
  return attributes;
}

function fromJson(request: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: jsonAttributes(span.attributes),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
        });
  }
  return spans;
}

// --- OTLP/protobuf: the wire format, read field by field ---

type Field = { number: number; wire: number; varint?: bigint; bytes?: Buffer; fixed?: Buffer };

function readVarint(buffer: Buffer, offset: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[offset++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, offset];
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [key, next] = readVarint(buffer, offset);
    offset = next;
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, offset);
      out.push({ number, wire, varint: value });
      offset = after;
    } else if (wire === 1) {
      out.push({ number, wire, fixed: buffer.subarray(offset, offset + 8) });
      offset += 8;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, offset);
      const end = after + Number(length);
      out.push({ number, wire, bytes: buffer.subarray(after, end) });
      offset = end;
    } else if (wire === 5) {
      out.push({ number, wire, fixed: buffer.subarray(offset, offset + 4) });
      offset += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const each = (buffer: Buffer, number: number) => fields(buffer).filter((f) => f.number === number);
const text = (field: Field | undefined) => field?.bytes?.toString('utf8') ?? '';
const hex = (field: Field | undefined) => field?.bytes?.toString('hex') ?? '';

function anyValue(buffer: Buffer): AttributeValue | undefined {
  const [field] = fields(buffer);
  if (field === undefined) return undefined;
  switch (field.number) {
    case 1:
      return text(field);
    case 2:
      return field.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.varint as bigint));
    case 4:
      return (field.fixed as Buffer).readDoubleLE(0);
    case 5: // ArrayValue { repeated AnyValue values = 1; }
      return each(field.bytes as Buffer, 1)
        .map((item) => anyValue(item.bytes as Buffer))
        .filter((v) => v !== undefined);
    default:
      return undefined;
  }
}

function protoAttributes(list: Field[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const entry of list) {
    const parts = fields(entry.bytes as Buffer);
    const key = text(parts.find((f) => f.number === 1));
    const value = parts.find((f) => f.number === 2);
    const decoded = value?.bytes === undefined ? undefined : anyValue(value.bytes);
    if (decoded !== undefined) attributes[key] = decoded;
  }
  return attributes;
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of each(body, 1)) {
    const rs = resourceSpans.bytes as Buffer;
    const resourceField = each(rs, 1)[0];
    const resource =
      resourceField === undefined ? {} : protoAttributes(each(resourceField.bytes as Buffer, 1));
    for (const scopeSpans of each(rs, 2))
      for (const spanField of each(scopeSpans.bytes as Buffer, 2)) {
        const span = fields(spanField.bytes as Buffer);
        const one = (n: number) => span.find((f) => f.number === n);
        const status = one(15)?.bytes;
        const statusFields = status === undefined ? [] : fields(status);
        spans.push({
          traceId: hex(one(1)),
          spanId: hex(one(2)),
          parentSpanId: hex(one(4)),
          name: text(one(5)),
          kind: Number(one(6)?.varint ?? 0n),
          attributes: protoAttributes(span.filter((f) => f.number === 9)),
          status: {
            code: Number(statusFields.find((f) => f.number === 3)?.varint ?? 0n),
            message: text(statusFields.find((f) => f.number === 2)),
          },
          resource,
        });
      }
  }
  return spans;
}
