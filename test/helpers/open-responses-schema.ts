import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CLIENT_FIXTURES } from './client-request-fixture.ts';

/**
 * Checks an answer of a Responses API against what the Open Responses specification requires
 * (docs/clients/open-responses-notes.md): the ResponseResource schema written from it
 * (test/fixtures/clients/open-responses/response-resource.schema.json), and the streaming events
 * the compliance test accepts, each with its required fields. Each check returns the problems
 * found, empty when there is none.
 */

const schema = JSON.parse(
  readFileSync(join(CLIENT_FIXTURES, 'open-responses', 'response-resource.schema.json'), 'utf8'),
) as object;
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

export function checkResponseResource(value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`.trim());
}

const AT_ITEM = ['item_id', 'output_index'];
const AT_CONTENT = [...AT_ITEM, 'content_index'];
const AT_SUMMARY = [...AT_ITEM, 'summary_index'];

/**
 * The event types of the specification's stream (the union its compliance test validates every
 * event against) and each one's required fields besides `type` and `sequence_number`. An event
 * of another type (such as OpenAI's `response.custom_tool_call_input.delta`) fails that test.
 */
export const STREAMING_EVENT_FIELDS: Record<string, string[]> = {
  'response.created': ['response'],
  'response.queued': ['response'],
  'response.in_progress': ['response'],
  'response.completed': ['response'],
  'response.failed': ['response'],
  'response.incomplete': ['response'],
  'response.output_item.added': ['output_index', 'item'],
  'response.output_item.done': ['output_index', 'item'],
  'response.reasoning_summary_part.added': [...AT_SUMMARY, 'part'],
  'response.reasoning_summary_part.done': [...AT_SUMMARY, 'part'],
  'response.content_part.added': [...AT_CONTENT, 'part'],
  'response.content_part.done': [...AT_CONTENT, 'part'],
  'response.output_text.delta': [...AT_CONTENT, 'delta'],
  'response.output_text.done': [...AT_CONTENT, 'text'],
  'response.refusal.delta': [...AT_CONTENT, 'delta'],
  'response.refusal.done': [...AT_CONTENT, 'refusal'],
  'response.reasoning.delta': [...AT_CONTENT, 'delta'],
  'response.reasoning.done': [...AT_CONTENT, 'text'],
  'response.reasoning_summary_text.delta': [...AT_SUMMARY, 'delta'],
  'response.reasoning_summary_text.done': [...AT_SUMMARY, 'text'],
  'response.output_text.annotation.added': [...AT_CONTENT, 'annotation_index', 'annotation'],
  'response.function_call_arguments.delta': [...AT_ITEM, 'delta'],
  'response.function_call_arguments.done': [...AT_ITEM, 'arguments'],
  error: ['error'],
};

/** A streamed event: a known type, an integer sequence_number, its fields, a valid response. */
export function checkStreamingEvent(event: Record<string, unknown>): string[] {
  const type = String(event['type']);
  const fields = STREAMING_EVENT_FIELDS[type];
  if (fields === undefined) return [`${type}: not an event type of the specification`];
  const problems: string[] = [];
  if (!Number.isInteger(event['sequence_number']))
    problems.push(`${type}: sequence_number is not an integer`);
  for (const field of fields) if (!(field in event)) problems.push(`${type}: ${field} is missing`);
  if ('response' in event) {
    for (const problem of checkResponseResource(event['response']))
      problems.push(`${type}: response${problem}`);
  }
  return problems;
}

/** A whole stream: every event valid, sequence numbers increasing, and one terminal event last. */
export function checkResponseStream(events: Record<string, unknown>[]): string[] {
  const problems = events.flatMap(checkStreamingEvent);
  for (const [index, event] of events.entries()) {
    const previous = events[index - 1]?.['sequence_number'];
    if (typeof previous === 'number' && Number(event['sequence_number']) <= previous) {
      problems.push(`sequence_number ${String(event['sequence_number'])} does not follow ${previous}`);
    }
  }
  const last = String(events.at(-1)?.['type']);
  if (!['response.completed', 'response.failed', 'response.incomplete'].includes(last)) {
    problems.push(`the stream ends with ${last}, not a terminal event`);
  }
  return problems;
}
