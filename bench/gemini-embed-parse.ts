/**
 * What a Gemini batchEmbedContents answer costs the gateway between the upstream's bytes and the
 * native answer's bytes, read whole (decode, JSON.parse, check every number, print every number)
 * against read as bytes (the byte walker keeps each `values` array, the answer copies it). The
 * bench's mock speaks OpenAI only, so this measures the two paths in one process on the same
 * bodies, in alternating rounds:
 *
 *     node bench/gemini-embed-parse.ts [--vectors=100] [--dimensions=3072] [--rounds=7] [--digits=17]
 *
 * `--digits=17` prints each number as a float32 widened to double prints (up to 17 significant
 * digits); `--digits=9` as nine significant digits. The bodies come from a ring of distinct
 * vectors, so V8's number-to-string cache answers none of the printing.
 */
import { parseArgs } from 'node:util';
import { embedAnswerJson } from '../src/gateway/doors/native/embed-answer-json.ts';
import { parseWithLiftedEmbeddings } from '../src/gateway/providers/embedding-arrays.ts';
import {
  fromBatchEmbedResponse,
  GEMINI_EMBEDDING_PLACE,
} from '../src/gateway/providers/gemini/gemini-embeddings.ts';
import type { EmbeddingVector } from '../src/gateway/providers/provider.ts';

const { values } = parseArgs({
  options: {
    vectors: { type: 'string', default: '100' },
    dimensions: { type: 'string', default: '3072' },
    rounds: { type: 'string', default: '7' },
    digits: { type: 'string', default: '17' },
  },
});
const VECTORS = Number(values.vectors);
const DIMENSIONS = Number(values.dimensions);
const ROUNDS = Number(values.rounds);
const DIGITS = Number(values.digits);
const BODIES = 8;
const SLOT = 'provider-a';

/** A deterministic pseudo-random float32 in (-0.1, 0.1), as embedding values lie. */
let seed = 12345;
function nextValue(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return Math.fround((seed / 2 ** 32 - 0.5) / 5);
}

function spell(x: number): string {
  return DIGITS >= 17 ? String(x) : String(Number(x.toPrecision(DIGITS)));
}

/** A body as Google lays it out: two-space indents, one value a line. */
function geminiBody(): Buffer {
  const items: string[] = [];
  for (let v = 0; v < VECTORS; v++) {
    const numbers = Array.from({ length: DIMENSIONS }, () => spell(nextValue()));
    items.push(`    {\n      "values": [\n        ${numbers.join(',\n        ')}\n      ]\n    }`);
  }
  return Buffer.from(`{\n  "embeddings": [\n${items.join(',\n')}\n  ]\n}\n`);
}

function answer(vectors: EmbeddingVector[]): string | Buffer {
  return embedAnswerJson({
    id: 'req',
    provider: SLOT,
    model: 'gemini-embedding-001',
    embeddings: vectors,
    usage: { tokensIn: 1, tokensOut: 0, estimatedCost: 0, estimated: true },
    latencyMs: 1,
  } as never);
}

/** Main's path: the body decoded and parsed whole, every number checked, then printed. */
function readWhole(body: Buffer): string | Buffer {
  return answer(fromBatchEmbedResponse(JSON.parse(body.toString('utf8')), VECTORS, SLOT));
}

/** This path: the byte walker keeps each `values` array, the answer copies it. */
function readAsBytes(body: Buffer): string | Buffer {
  const parsed = parseWithLiftedEmbeddings(body, GEMINI_EMBEDDING_PLACE) ?? JSON.parse(body.toString('utf8'));
  return answer(fromBatchEmbedResponse(parsed, VECTORS, SLOT));
}

const bodies = Array.from({ length: BODIES }, geminiBody);
const bodyBytes = bodies[0]?.length ?? 0;

// Both paths must give a client the same numbers before their times mean anything.
for (const body of bodies.slice(0, 2)) {
  const whole = JSON.parse(readWhole(body).toString()).embeddings;
  const asBytes = JSON.parse(readAsBytes(body).toString()).embeddings;
  if (JSON.stringify(whole) !== JSON.stringify(asBytes)) throw new Error('the two paths disagree');
}

/** Microseconds per body, over enough bodies to take about half a second. */
function time(path: (body: Buffer) => string | Buffer): number {
  let sink = 0;
  let count = 0;
  const started = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < 500 || count < BODIES) {
    sink += path(bodies[count % BODIES] as Buffer).length;
    count++;
    elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  }
  if (sink === 0) throw new Error('nothing written');
  return (elapsed * 1000) / count;
}

// Warm both paths up before timing either.
time(readWhole);
time(readAsBytes);
const whole: number[] = [];
const asBytes: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  whole.push(time(readWhole));
  asBytes.push(time(readAsBytes));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
console.log(
  `${VECTORS} vectors x ${DIMENSIONS} numbers, ${DIGITS} digits: body ${(bodyBytes / 1024).toFixed(0)} KiB, ${ROUNDS} rounds`,
);
console.log(`read whole: median ${median(whole).toFixed(0)} µs a body (rounds ${range(whole)})`);
console.log(`as bytes:   median ${median(asBytes).toFixed(0)} µs a body (rounds ${range(asBytes)})`);
console.log(`ratio: ${(median(whole) / median(asBytes)).toFixed(2)}x`);
