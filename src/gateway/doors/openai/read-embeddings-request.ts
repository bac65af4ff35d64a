import type { ModelAddress } from '../../domain/model-addressing.ts';
import type { EmbedInput } from '../../domain/use-case-inputs.ts';
import { refuseField } from '../openai-refusal.ts';
import type { OpenAIEmbeddingsBody } from './openai-schemas.ts';

/**
 * `POST /v1/embeddings` in the gateway's words: a string or an array of strings. OpenAI also
 * takes token arrays (integers of its own tokenizers), which mean nothing to another vendor's
 * model: refused by name. An empty string is refused as OpenAI refuses it.
 */
export function readEmbeddingsRequest(body: OpenAIEmbeddingsBody, address: ModelAddress): EmbedInput {
  const input = body.input;
  if (typeof input === 'string') {
    if (input === '') throw refuseField('/input', 'must not be an empty string');
  } else {
    for (let i = 0; i < input.length; i++) {
      const item = input[i];
      if (typeof item === 'string' && item !== '') continue;
      const tokens = typeof item === 'number' || Array.isArray(item);
      throw refuseField(
        `/input/${i}`,
        tokens ? 'token arrays are not supported: send text' : 'must be a non-empty string',
      );
    }
  }
  const embed: EmbedInput = {
    input: input as string | string[],
    provider: address.provider,
    model: address.model,
  };
  if (body.dimensions !== undefined) embed.dimensions = body.dimensions;
  return embed;
}
