import type { EmbedInput } from '../../domain/use-case-inputs.ts';
import type { EmbedAnswer } from '../../services/use-cases/run-embed.ts';
import { costHeaderOf } from '../cost-header.ts';
import { embeddingNumbersMaxBytes, toEmbeddingNumbers, writeEmbeddingNumbers } from '../embedding-numbers.ts';
import { JSON_TEXT } from '../serve-run.ts';
import type { EmbedDoor, EmbedReading } from '../serve-use-case.ts';
import { refuseGeminiField } from './gemini-refusal.ts';

type Json = Record<string, unknown>;
type EmbeddingVector = EmbedAnswer['embeddings'][number];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Google's cap on one batchEmbedContents call. */
const MAX_BATCH = 100;

export interface GeminiEmbedRequest {
  texts: string[];
  dimensions: number | undefined;
}

/** `embedContent`: one Content of text parts (joined), `outputDimensionality`; taskType and title are hints only. */
export function readEmbedContent(body: unknown): GeminiEmbedRequest {
  if (!isObject(body)) throw refuseGeminiField('body', 'must be an EmbedContentRequest object');
  return { texts: [contentText(body['content'], 'content')], dimensions: dimensionsOf(body, '') };
}

/** `batchEmbedContents`: up to 100 requests, each one Content, all for the model in the path. */
export function readBatchEmbedContents(body: unknown): GeminiEmbedRequest {
  const requests = isObject(body) ? body['requests'] : undefined;
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BATCH)
    throw refuseGeminiField('requests', `must be a list of 1 to ${MAX_BATCH} EmbedContentRequest`);
  const texts: string[] = [];
  let dimensions: number | undefined;
  requests.forEach((request, index) => {
    if (!isObject(request)) throw refuseGeminiField(`requests[${index}]`, 'must be an EmbedContentRequest');
    texts.push(contentText(request['content'], `requests[${index}].content`));
    const asked = dimensionsOf(request, `requests[${index}].`);
    if (index > 0 && asked !== dimensions)
      throw refuseGeminiField(`requests[${index}].outputDimensionality`, 'must be the same in every request');
    dimensions = asked;
  });
  return { texts, dimensions };
}

function contentText(content: unknown, at: string): string {
  if (!isObject(content) || !Array.isArray(content['parts']) || content['parts'].length === 0)
    throw refuseGeminiField(at, 'must be a Content with text parts');
  const texts = content['parts'].map((part, index) => {
    if (!isObject(part) || typeof part['text'] !== 'string')
      throw refuseGeminiField(`${at}.parts[${index}]`, 'only text can be embedded here');
    return part['text'];
  });
  const text = texts.join(' ');
  if (text === '') throw refuseGeminiField(at, 'must not be empty');
  return text;
}

function dimensionsOf(request: Json, at: string): number | undefined {
  const value = request['outputDimensionality'];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw refuseGeminiField(`${at}outputDimensionality`, 'must be a positive integer');
  return value;
}

/** One `ContentEmbedding` as JSON text, its numbers written as the upstream gave them. */
function embeddingJson(vector: EmbeddingVector): string {
  const numbers = toEmbeddingNumbers(vector);
  const buffer = Buffer.allocUnsafe(embeddingNumbersMaxBytes(numbers));
  const end = writeEmbeddingNumbers(buffer, 0, numbers);
  return `{"values":[${buffer.toString('latin1', 0, end)}]}`;
}

/**
 * `embedContent` (one Content) and `batchEmbedContents` (up to 100) for the model in the path,
 * onto the embeddings use case; the vectors written as the upstream gave them, the cost in
 * `x-gateway-cost-usd`.
 */
export function geminiEmbed(model: string, one: boolean): EmbedDoor<EmbedReading> {
  return {
    frontDoor: 'gemini',
    read: (body, address) => {
      const read = one ? readEmbedContent(body) : readBatchEmbedContents(body);
      const input: EmbedInput = { input: read.texts, ...address(model) };
      if (read.dimensions !== undefined) input.dimensions = read.dimensions;
      return { input, task: undefined, metadata: undefined };
    },
    answer: (answer) => ({
      headers: costHeaderOf(answer.usage.estimatedCost),
      body: one ? embedContentBody(answer.embeddings) : batchEmbedContentsBody(answer.embeddings),
      contentType: JSON_TEXT,
    }),
  };
}

/** `{"embedding": {...}}` for embedContent. */
export function embedContentBody(vectors: readonly EmbeddingVector[]): string {
  return `{"embedding":${embeddingJson(vectors[0] as EmbeddingVector)}}`;
}

/** `{"embeddings": [...]}` for batchEmbedContents, in request order. */
export function batchEmbedContentsBody(vectors: readonly EmbeddingVector[]): string {
  return `{"embeddings":[${vectors.map(embeddingJson).join(',')}]}`;
}
