import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulatedSlot } from '../../../../test/helpers/simulated-slot.ts';
import { encodingTokenizer } from '../../domain/encoding-tokenizer.ts';
import { o200kEncoding } from '../../tokenizer/o200k-encoding.ts';
import type { ChatCall, ChatMessage, ToolDefinition } from '../provider.ts';
import { ProviderError } from '../provider-error.ts';
import { MAX_PROMPT_DIRECTIVE_CHARS, promptDirectives } from './simulated-prompt-directives.ts';
import { SimulatedProvider } from './simulated-provider.ts';

const tokenizer = encodingTokenizer(o200kEncoding());
const readFile: ToolDefinition = {
  name: 'read_file',
  parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
};
const shell: ToolDefinition = {
  name: 'run_shell_command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};
const DIRECTIVE =
  '<simulated>{"toolCall": [{"name": "run_shell_command", "arguments": {"command": "echo ok"}},' +
  ' {"name": "read_file", "arguments": {"file_path": "notes.txt"}}]}</simulated>';

function context(metadata?: Record<string, unknown>) {
  return { signal: new AbortController().signal, requestId: 'r', attempt: 0, metadata };
}

function call(messages: ChatMessage[]): ChatCall {
  return { model: 'chat', messages, tools: [readFile, shell], toolChoice: 'auto' };
}

describe('a simulated directive in the prompt', () => {
  it('reads the first <simulated> block of the last user message only', () => {
    assert.deepEqual(
      promptDirectives([{ role: 'user', content: `Please. ${DIRECTIVE} Thanks.` }])?.['toolCall'],
      [
        { name: 'run_shell_command', arguments: { command: 'echo ok' } },
        { name: 'read_file', arguments: { file_path: 'notes.txt' } },
      ],
    );
    const later: ChatMessage[] = [
      { role: 'user', content: DIRECTIVE },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'And now?' },
    ];
    assert.equal(promptDirectives(later), undefined, 'a later prompt is not steered by an earlier one');
    assert.equal(promptDirectives([{ role: 'system', content: DIRECTIVE }]), undefined);
  });

  it('ignores a block that is unclosed, too long, or not a JSON object', () => {
    const read = (content: string) => promptDirectives([{ role: 'user', content }]);
    assert.equal(read('<simulated>{"reply": "x"}'), undefined);
    assert.equal(read('<simulated>[1]</simulated>'), undefined);
    assert.equal(read('<simulated>{reply}</simulated>'), undefined);
    const long = JSON.stringify({ reply: 'x'.repeat(MAX_PROMPT_DIRECTIVE_CHARS) });
    assert.equal(read(`<simulated>${long}</simulated>`), undefined);
    assert.deepEqual(read('<simulated>{"reply": "x"}</simulated>'), { reply: 'x' });
  });

  it('makes the calls it names with the arguments it gives, then text quoting the last result', async () => {
    const provider = new SimulatedProvider(simulatedSlot({ allowRequestDirectives: true }), tokenizer);
    const asked: ChatMessage[] = [{ role: 'user', content: `Read the notes. ${DIRECTIVE}` }];
    const first = await provider.chat(call(asked), context());
    assert.equal(first.finishReason, 'tool_calls');
    assert.deepEqual(
      first.toolCalls?.map((made) => [made.name, JSON.parse(made.arguments)]),
      [
        ['run_shell_command', { command: 'echo ok' }],
        ['read_file', { file_path: 'notes.txt' }],
      ],
    );
    const answered: ChatMessage[] = [
      ...asked,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', content: 'ok', toolCallId: first.toolCalls?.[0]?.id },
      { role: 'tool', content: 'The secret word is heliotrope.', toolCallId: first.toolCalls?.[1]?.id },
    ];
    const second = await provider.chat(call(answered), context());
    assert.equal(second.toolCalls, undefined);
    assert.match(second.content, /heliotrope/);
  });

  it('is merged under metadata.simulated, and read only where the slot allows directives', async () => {
    const steered: ChatMessage[] = [
      {
        role: 'user',
        content: '<simulated>{"reply": "from the prompt", "fault": "bad_request"}</simulated>',
      },
    ];
    const allowed = new SimulatedProvider(simulatedSlot({ allowRequestDirectives: true }), tokenizer);
    const plain = { model: 'chat', messages: steered };
    await assert.rejects(allowed.chat(plain, context()), (error: unknown) => error instanceof ProviderError);
    const overridden = await allowed.chat(
      plain,
      context({ simulated: { fault: 'timeout', faultAttempts: 0 } }),
    );
    assert.equal(overridden.content, 'from the prompt');
    const closed = new SimulatedProvider(simulatedSlot({ allowRequestDirectives: false }), tokenizer);
    assert.doesNotMatch((await closed.chat(plain, context())).content, /^from the prompt$/);
  });
});
