import assert from 'node:assert/strict';
import type { ScriptedReply } from './scripted-reply.ts';

/** The tool loop Gemini CLI is run with on every slot kind: read a file, run a command, answer. */
export const NOTES = 'The secret word is heliotrope.\n';
export const COMMAND = 'echo tool-loop-ok';
export const LOOP_PROMPT = 'Read notes.txt, then run `echo tool-loop-ok`, then tell me the secret word.';
export const LOOP_ANSWER = 'The secret word is heliotrope.';

/** The scripted answers of the loop, for any vendor's mock (`replyNext`), ids given so each turn's differ. */
export const LOOP_REPLIES: ScriptedReply[] = [
  { toolCalls: [{ id: 'call_read_1', name: 'read_file', arguments: { file_path: 'notes.txt' } }] },
  { toolCalls: [{ id: 'call_shell_2', name: 'run_shell_command', arguments: { command: COMMAND } }] },
  { text: LOOP_ANSWER },
];

/** The response of the last user turn's functionResponse named `name`. */
export function functionResponseOf(body: any, name: string): unknown {
  const last = body.contents.at(-1);
  const part = last.parts.find((candidate: any) => candidate.functionResponse?.name === name);
  assert.ok(part !== undefined, `no functionResponse for ${name} in ${JSON.stringify(last).slice(0, 500)}`);
  return part.functionResponse.response;
}
