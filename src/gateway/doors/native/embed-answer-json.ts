import type { EmbedAnswer } from '../../services/use-cases/run-embed.ts';
import { answerBytes, answerPayload } from '../answer-bytes.ts';
import {
  type EmbeddingNumbers,
  embeddingNumbersMaxBytes,
  toEmbeddingNumbers,
  writeEmbeddingNumbers,
} from '../embedding-numbers.ts';

/**
 * The /v1/embed answer as UTF-8 JSON (text or bytes, see answer-bytes.ts), in place of the
 * route's schema serializer. That one (fast-json-stringify) formats a vector one number at a
 * time: about 120-170 µs for one 1536-dimension vector, a third of the gateway's CPU per
 * embeddings request. Here each vector goes out in the form it came (embedding-numbers.ts),
 * written straight into bytes. The fields are those of the EmbedResponse schema, which still
 * documents the route.
 */
export function embedAnswerJson(answer: EmbedAnswer): string | Buffer {
  const head =
    `{"id":${JSON.stringify(answer.id)},"provider":${JSON.stringify(answer.provider)},` +
    `"model":${JSON.stringify(answer.model)},"embeddings":[`;
  const usage = answer.usage;
  const tail =
    `],"usage":{"tokensIn":${usage.tokensIn},"tokensOut":${usage.tokensOut},` +
    `"estimatedCost":${usage.estimatedCost},"estimated":${usage.estimated},` +
    `"tokensInCacheRead":${usage.tokensInCacheRead},"tokensInCacheWrite":${usage.tokensInCacheWrite}},` +
    `"latencyMs":${answer.latencyMs}}`;
  const vectors = answer.embeddings.map(toEmbeddingNumbers);
  // A UTF-16 code unit takes at most 3 bytes of UTF-8; a vector adds its brackets and a comma.
  let size = 3 * (head.length + tail.length);
  for (const vector of vectors) size += 3 + embeddingNumbersMaxBytes(vector);
  const out = answerBytes(size);
  let pos = out.write(head, 0, 'utf8');
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0) out[pos++] = COMMA;
    out[pos++] = OPEN_BRACKET;
    pos = writeEmbeddingNumbers(out, pos, vectors[i] as EmbeddingNumbers);
    out[pos++] = CLOSE_BRACKET;
  }
  pos += out.write(tail, pos, 'utf8');
  return answerPayload(out, pos);
}

const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
