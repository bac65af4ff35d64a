import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type MockOpenAIServer, startMockOpenAI } from '../helpers/mock-openai-server.ts';
import { checkResponseResource, checkResponseStream } from '../helpers/open-responses-schema.ts';
import { parseSse } from '../helpers/parse-sse.ts';

/**
 * The recording OpenAI mock's /v1/responses answers what the Open Responses specification requires,
 * checked with the validator a later test of the gateway's Responses door will use, and the
 * validator finds what is wrong in an answer that is not.
 */

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

describe('Open Responses checks on the recording mock', () => {
  let mock: MockOpenAIServer;
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(() => mock.close());

  async function post(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${mock.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    });
  }

  it('answers a basic request with a valid ResponseResource', async () => {
    mock.replyNext({ text: 'Hello there, friend.' });
    const response = await post({
      model: 'gpt-5.5',
      input: [{ type: 'message', role: 'user', content: 'Hi' }],
    });
    const body = (await response.json()) as Record<string, any>;
    assert.deepEqual(checkResponseResource(body), []);
    assert.equal(body['status'], 'completed');
    assert.equal(body['output'][0].content[0].text, 'Hello there, friend.');
  });

  it('streams a function call with only the specification’s events, numbered in order', async () => {
    mock.replyNext({ toolCalls: [{ name: 'get_weather', arguments: { location: 'San Francisco, CA' } }] });
    const response = await post({ model: 'gpt-5.5', input: 'Weather?', tools: [weatherTool], stream: true });
    const events = parseSse(await response.text()).map((event) => event.data as Record<string, any>);
    assert.deepEqual(checkResponseStream(events), []);
    const types = events.map((event) => event['type']);
    assert.ok(types.includes('response.function_call_arguments.delta'));
    assert.equal(events.at(-1)?.['response'].output[0].type, 'function_call');
  });

  it('finds a missing required field, a wrong type and an event the specification has not', () => {
    assert.deepEqual(checkResponseResource({ id: 'resp_1' }).length > 0, true);
    const problems = checkResponseResource({ ...validResource(), top_logprobs: 'none', store: undefined });
    assert.ok(problems.some((problem) => problem.includes('store')));
    assert.ok(problems.some((problem) => problem.includes('/top_logprobs')));
    // Codex's custom tool input arrives in OpenAI's own events, which the specification lacks.
    const stream = checkResponseStream([
      {
        type: 'response.custom_tool_call_input.delta',
        sequence_number: 0,
        item_id: 'ctc_1',
        output_index: 0,
        delta: 'x',
      },
    ]);
    assert.ok(stream.some((problem) => problem.includes('not an event type')));
    assert.ok(stream.some((problem) => problem.includes('not a terminal event')));
  });
});

function validResource(): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    completed_at: 2,
    status: 'completed',
    incomplete_details: null,
    model: 'gpt-5.5',
    previous_response_id: null,
    instructions: null,
    output: [],
    error: null,
    tools: [],
    tool_choice: 'auto',
    truncation: 'disabled',
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage: null,
    max_output_tokens: null,
    max_tool_calls: null,
    store: false,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
  };
}
