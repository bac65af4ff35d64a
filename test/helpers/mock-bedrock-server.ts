import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { sseMessages } from './mock-anthropic-server.ts';
import { scriptedEventStream, scriptedMessage } from './mock-anthropic-tools.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import { sigV4Problem } from './sigv4-check.ts';

/**
 * A local stand-in for AWS Bedrock Runtime: Converse, ConverseStream, InvokeModel and
 * InvokeModelWithResponseStream (Claude's Messages body, Titan and Cohere embeddings), answering
 * as AWS does (JSON, or `application/vnd.amazon.eventstream` frames written with the SDK's codec)
 * and refusing as AWS does (`x-amzn-errortype`). Every request must carry a valid SigV4 signature
 * made with the known test credentials (sigv4-check.ts), or the Bedrock API key `apiKey` as a
 * bearer token; anything else is a 403 `InvalidSignatureException`. The official SDKs
 * (`@aws-sdk/client-bedrock-runtime`, `@anthropic-ai/bedrock-sdk`) are run against it
 * (test/clients/bedrock-sdk-mock.test.ts), which keeps it honest.
 *
 * Scripting: `replyNext(reply)` answers the next model call with a ScriptedReply (text, tool
 * calls, thinking, usage) in the called API's own shape; `failNext(status, type)` refuses it.
 */
export interface BedrockRecordedRequest {
  path: string;
  /** The model id, decoded from the path. */
  modelId: string;
  operation: 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
  /** `sigv4` or `bearer`. */
  auth: string;
}

export interface MockBedrockServer {
  origin: string;
  region: string;
  requests: BedrockRecordedRequest[];
  /** Every refused signature, with why. */
  refusals: string[];
  replyNext(reply: ScriptedReply): void;
  failNext(status: number, errorType: string, message?: string): void;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

type Next = { reply: ScriptedReply } | { status: number; errorType: string; message: string };

export async function startMockBedrock(
  options: { region?: string; apiKey?: string } = {},
): Promise<MockBedrockServer> {
  const region = options.region ?? 'us-east-1';
  const queue: Next[] = [];
  const requests: BedrockRecordedRequest[] = [];
  const refusals: string[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const rawPath = request.url ?? '/';
    const auth = String(request.headers['authorization'] ?? '');
    const problem =
      options.apiKey !== undefined && auth === `Bearer ${options.apiKey}`
        ? undefined
        : await sigV4Problem(request.method ?? 'POST', rawPath, request.headers, raw, {
            region,
            service: 'bedrock',
          });
    if (problem !== undefined) {
      refusals.push(problem);
      return fail(
        response,
        403,
        'InvalidSignatureException',
        `The request signature we calculated does not match: ${problem}`,
      );
    }
    const match = PATH.exec(rawPath.split('?')[0] ?? '');
    if (match === null) return fail(response, 404, 'UnknownOperationException', 'no such operation');
    const modelId = decodeURIComponent(match[1] as string);
    const operation = match[2] as BedrockRecordedRequest['operation'];
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return fail(response, 400, 'ValidationException', 'body is not JSON');
    }
    requests.push({
      path: rawPath,
      modelId,
      operation,
      headers: request.headers,
      raw,
      body,
      auth: auth.startsWith('Bearer') ? 'bearer' : 'sigv4',
    });
    const next = queue.shift() ?? { reply: { text: 'Hello from Bedrock.' } };
    if ('status' in next) return fail(response, next.status, next.errorType, next.message);
    if (operation === 'invoke' && modelId.includes('embed')) return embed(response, modelId, body);
    const invalid = checkBody(operation, modelId, body);
    if (invalid !== undefined) return fail(response, 400, 'ValidationException', invalid);
    const message = { ...scriptedMessage(next.reply), model: modelId };
    if (operation === 'invoke') return json(response, message);
    if (operation === 'converse') return json(response, toConverse(message));
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    const events = sseMessages(scriptedEventStream(next.reply));
    if (operation === 'invoke-with-response-stream') {
      for (const event of events) {
        const data = event.data.replace(/"model":"[^"]*"/, `"model":${JSON.stringify(modelId)}`);
        response.write(frame('chunk', { bytes: Buffer.from(data).toString('base64'), p: 'abcd' }));
      }
    } else
      for (const converse of toConverseEvents(events)) response.write(frame(converse.type, converse.body));
    response.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    region,
    requests,
    refusals,
    replyNext: (reply) => queue.push({ reply }),
    failNext: (status, errorType, message = `${errorType} from the mock`) =>
      queue.push({ status, errorType, message }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Bedrock's own checks that the adapters could get wrong. */
function checkBody(operation: string, modelId: string, body: Record<string, unknown>): string | undefined {
  if (operation.startsWith('invoke')) {
    // Bedrock's own version, or (as Anthropic's Bedrock SDK now sends) the Messages API's date.
    const version = String(body['anthropic_version']);
    if (version !== 'bedrock-2023-05-31' && !/^\d{4}-\d{2}-\d{2}$/.test(version))
      return 'anthropic_version: bedrock-2023-05-31 is required';
    if ('model' in body) return 'extraneous key [model] is not permitted';
    if ('stream' in body) return 'extraneous key [stream] is not permitted';
    if (!modelId.includes('anthropic')) return `${modelId} does not take the Messages body`;
    return undefined;
  }
  if (!Array.isArray(body['messages'])) return 'messages is required';
  if ('model' in body) return 'extraneous key [model] is not permitted';
  return undefined;
}

function fail(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
  response.end(JSON.stringify({ message }));
}

function json(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function frame(eventType: string, body: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify(body)),
  });
}

function embed(response: ServerResponse, modelId: string, body: Record<string, unknown>): void {
  const vector = (text: string) => [text.length / 10, 0.5, -0.25, 0.125];
  if (modelId.includes('cohere')) {
    const texts = body['texts'] as string[];
    json(response, {
      id: 'emb',
      texts,
      embeddings: { float: texts.map(vector) },
      response_type: 'embeddings_by_type',
    });
    return;
  }
  const text = String(body['inputText']);
  json(response, { embedding: vector(text), inputTextTokenCount: Math.ceil(text.length / 4) });
}

const STOP: Readonly<Record<string, string>> = { refusal: 'content_filtered' };

/** A Messages answer as Converse writes it. */
function toConverse(message: Record<string, unknown>): Record<string, unknown> {
  const usage = message['usage'] as Record<string, number>;
  const content = (message['content'] as Record<string, unknown>[]).map((block) => {
    if (block['type'] === 'text') return { text: block['text'] };
    if (block['type'] === 'tool_use')
      return { toolUse: { toolUseId: block['id'], name: block['name'], input: block['input'] } };
    return {
      reasoningContent: { reasoningText: { text: block['thinking'], signature: block['signature'] } },
    };
  });
  const stop = String(message['stop_reason']);
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: STOP[stop] ?? stop,
    usage: converseUsage(usage),
    metrics: { latencyMs: 12 },
  };
}

function converseUsage(usage: Record<string, number>): Record<string, number> {
  const read = usage['cache_read_input_tokens'] ?? 0;
  const write = usage['cache_creation_input_tokens'] ?? 0;
  const input = usage['input_tokens'] ?? 0;
  const output = usage['output_tokens'] ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output + read + write,
    cacheReadInputTokens: read,
    cacheWriteInputTokens: write,
  };
}

/** A Messages event stream as ConverseStream's events. */
function toConverseEvents(events: { event?: string | undefined; data: string }[]) {
  const out: { type: string; body: Record<string, unknown> }[] = [];
  let usage: Record<string, number> = {};
  let stop = 'end_turn';
  for (const event of events) {
    const data = JSON.parse(event.data) as Record<string, any>;
    const index = data['index'] as number;
    switch (data['type']) {
      case 'message_start':
        usage = data['message'].usage;
        out.push({ type: 'messageStart', body: { role: 'assistant' } });
        break;
      case 'content_block_start':
        if (data['content_block'].type === 'tool_use')
          out.push({
            type: 'contentBlockStart',
            body: {
              contentBlockIndex: index,
              start: { toolUse: { toolUseId: data['content_block'].id, name: data['content_block'].name } },
            },
          });
        break;
      case 'content_block_delta': {
        const delta = data['delta'];
        const converse =
          delta.type === 'text_delta'
            ? { text: delta.text }
            : delta.type === 'input_json_delta'
              ? { toolUse: { input: delta.partial_json } }
              : delta.type === 'thinking_delta'
                ? { reasoningContent: { text: delta.thinking } }
                : { reasoningContent: { signature: delta.signature } };
        out.push({ type: 'contentBlockDelta', body: { contentBlockIndex: index, delta: converse } });
        break;
      }
      case 'content_block_stop':
        out.push({ type: 'contentBlockStop', body: { contentBlockIndex: index } });
        break;
      case 'message_delta':
        stop = data['delta'].stop_reason;
        usage = { ...usage, ...data['usage'] };
        break;
    }
  }
  out.push({ type: 'messageStop', body: { stopReason: STOP[stop] ?? stop } });
  out.push({ type: 'metadata', body: { usage: converseUsage(usage), metrics: { latencyMs: 12 } } });
  return out;
}
