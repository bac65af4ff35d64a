import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  readOpenAIFixture,
  SSE_HEADERS,
  syntheticStream,
  writeEventsPaced,
} from '../test/helpers/mock-openai-server.ts';
import { PACED_MARKER, PACED_STREAM } from './agent-scenarios.ts';
import { anthropicMessage, anthropicStream } from './anthropic-answers.ts';
import { BURST_MARKER, JSON_EMBED_MODEL } from './scenarios.ts';

/**
 * The benchmark's upstream: an OpenAI-compatible server in its own process that serves
 * precomputed answers, so it costs as little as a Node.js HTTP server can and is never what is
 * being measured. Adapted from test/helpers/mock-openai-server.ts (same recorded completion and
 * stream shape), with what the benchmark needs on top: a JSON-mode answer for `/v1/json`,
 * embeddings of a realistic width, and streams whose chunks are spaced out in time so that a
 * gateway that buffered them would show it. `POST /v1/messages` is answered in Anthropic's format
 * (anthropic-answers.ts), with the same stream options and paced mode, for the gateway's slot of
 * kind `anthropic` (the Anthropic door's same-vendor lane).
 *
 * Bodies are recognised by substring rather than parsed: every client of this server (the load
 * generator, the forwarder passing its requests on, the gateway) writes compact JSON.
 */
const { values } = parseArgs({
  options: {
    'stream-chunks': { type: 'string', default: '10' },
    'chunk-delay-ms': { type: 'string', default: '2' },
    'embed-dims': { type: 'string', default: '1536' },
  },
});
const streamChunks = Number(values['stream-chunks']);
const chunkDelayMs = Number(values['chunk-delay-ms']);
const embedDims = Number(values['embed-dims']);

const JSON_HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_mock' };
// Anthropic names its request id `request-id`.
const ANTHROPIC_JSON_HEADERS = { 'content-type': 'application/json', 'request-id': 'req_mock' };
const ANTHROPIC_SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'request-id': 'req_mock',
};

const completionText = readOpenAIFixture('chat-completion.json');
const completion = Buffer.from(JSON.stringify(JSON.parse(completionText)));
const jsonCompletion = (() => {
  const body = JSON.parse(completionText) as { choices: { message: { content: string } }[] };
  const choice = body.choices[0];
  if (choice !== undefined) choice.message.content = JSON.stringify({ name: 'Ada Lovelace', age: 36 });
  return Buffer.from(JSON.stringify(body));
})();

// Role, `streamChunks` content chunks, finish, usage and [DONE], as OpenAI sends with include_usage.
const stream = syntheticStream(streamChunks, true);
const wholeStream = Buffer.concat(stream);
// The same stream in Anthropic's events: as many writes, the same text.
const messagesStream = anthropicStream(streamChunks);
const wholeMessagesStream = Buffer.concat(messagesStream);

/** One `text-embedding-3-small`-sized vector (base64 float32, as the adapter asks for). */
function embeddingsBody(dims: number, seed: number): Buffer {
  const floats = new Float32Array(dims);
  // Deterministic, varied values with the magnitudes real embeddings have.
  for (let i = 0; i < dims; i++) floats[i] = Math.sin((i + seed * dims) * 12.9898) * 0.08;
  const base64 = Buffer.from(floats.buffer).toString('base64');
  return Buffer.from(
    `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"${base64}"}],` +
      '"model":"text-embedding-3-small","usage":{"prompt_tokens":5,"total_tokens":5}}',
  );
}
/**
 * Answers cycle through distinct vectors, as real traffic's do. With one vector repeated, V8's
 * number-to-string cache answers most of a server's number formatting after the first request
 * (107 against 334 µs to write a 1536-dimension vector with `join(',')`), which no real upstream
 * allows; 64 vectors hold 98,304 distinct numbers, far more than that cache keeps.
 */
const EMBEDDING_RING = 64;
const embeddings = Array.from({ length: EMBEDDING_RING }, (_, seed) => embeddingsBody(embedDims, seed));
let nextEmbedding = 0;

/**
 * The same vectors as JSON number arrays, for `embed-json`: each float32 printed as the double it
 * is, in full (`-0.0071659265`… up to 17 digits), as servers that hold float32 vectors and write
 * them through a double's formatting do (OpenAI's own `float` answers look so).
 */
function jsonEmbeddingsBody(dims: number, seed: number): Buffer {
  const numbers: string[] = [];
  for (let i = 0; i < dims; i++)
    numbers.push(String(Math.fround(Math.sin((i + seed * dims) * 12.9898) * 0.08)));
  return Buffer.from(
    `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[${numbers.join(',')}]}],` +
      `"model":"${JSON_EMBED_MODEL}","usage":{"prompt_tokens":5,"total_tokens":5}}`,
  );
}
const jsonEmbeddings = Array.from({ length: EMBEDDING_RING }, (_, seed) =>
  jsonEmbeddingsBody(embedDims, seed),
);

// An agent's answer as a model streams it: the first token after a think time, then one a few
// milliseconds apart (bench/agent-scenarios.ts).
const pacedStream = syntheticStream(PACED_STREAM.tokens, true);
const pacedMessagesStream = anthropicStream(PACED_STREAM.tokens);

type Headers = Record<string, string>;

function writePaced(res: ServerResponse, events: readonly Buffer[], headers: Headers): void {
  res.writeHead(200, headers);
  // What precedes the first token at once (OpenAI's role chunk, Anthropic's message_start and
  // content_block_start), the first token after the think time.
  const [head, ...rest] = events;
  res.write(head as Buffer);
  setTimeout(() => writeEventsPaced(res, rest, PACED_STREAM.gapMs), PACED_STREAM.firstTokenMs);
}

function writeStream(
  res: ServerResponse,
  events: readonly Buffer[],
  whole: Buffer,
  headers: Headers,
  burst: boolean,
): void {
  res.writeHead(200, headers);
  if (chunkDelayMs <= 0 || burst) {
    res.end(whole);
    return;
  }
  writeEventsPaced(res, events, chunkDelayMs);
}

/** Anthropic's Messages API: a Message, or its event stream for `"stream":true`. */
function answerMessages(res: ServerResponse, body: string): void {
  if (!body.includes('"stream":true')) res.writeHead(200, ANTHROPIC_JSON_HEADERS).end(anthropicMessage);
  else if (body.includes(PACED_MARKER)) writePaced(res, pacedMessagesStream, ANTHROPIC_SSE_HEADERS);
  else
    writeStream(res, messagesStream, wholeMessagesStream, ANTHROPIC_SSE_HEADERS, body.includes(BURST_MARKER));
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (req.url === '/v1/messages') {
    answerMessages(res, body);
  } else if (req.url === '/v1/embeddings') {
    const ring = body.includes(JSON_EMBED_MODEL) ? jsonEmbeddings : embeddings;
    res.writeHead(200, JSON_HEADERS).end(ring[nextEmbedding++ % EMBEDDING_RING]);
  } else if (body.includes('"stream":true') && body.includes(PACED_MARKER)) {
    writePaced(res, pacedStream, SSE_HEADERS);
  } else if (body.includes('"stream":true')) {
    writeStream(res, stream, wholeStream, SSE_HEADERS, body.includes(BURST_MARKER));
  } else if (body.includes('"response_format"')) {
    res.writeHead(200, JSON_HEADERS).end(jsonCompletion);
  } else {
    res.writeHead(200, JSON_HEADERS).end(completion);
  }
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => answer(req, res, body));
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
process.on('SIGTERM', () => process.exit(0));
