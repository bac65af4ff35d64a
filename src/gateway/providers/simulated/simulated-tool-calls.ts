import { fnv1a, seededRandom } from '../../domain/hash-seed.ts';
import type { ChatCall, ToolCall, ToolDefinition } from '../provider.ts';
import { sampleFromSchema } from './sample-from-schema.ts';
import type { NamedCall, SimulatedDirectives } from './simulated-directives.ts';

/**
 * The tool calls the simulated model makes, or none. It calls a tool when asked to: a `toolChoice`
 * of `required` (a tool picked by the seed) or `{name}`, or the `toolCall` directive (a name or
 * `{name, arguments}`, a list of them for parallel calls, or `true` for a tool picked by the
 * seed). It never calls one
 * right after a tool result (the last message is a `tool` message), nor with `toolChoice: none`,
 * so that an agent loop driven by it ends with a text answer; with `auto` and no directive it
 * answers text. Arguments the directive gives are sent as given (the client's tool judges them,
 * as it judges a real model's); others are sampled from the tool's parameters schema, valid for
 * it, and deterministic for the conversation.
 */
export function simulateToolCalls(
  call: ChatCall,
  directives: SimulatedDirectives,
  seed: number,
): ToolCall[] | undefined {
  const tools = call.tools;
  if (tools === undefined || tools.length === 0) return undefined;
  if (call.toolChoice === 'none' || call.messages.at(-1)?.role === 'tool') return undefined;
  const chosen = chooseTools(tools, call.toolChoice, directives.toolCall, seed);
  if (chosen.length === 0) return undefined;
  return chosen.map(({ tool, given }, index) => {
    const callSeed = fnv1a(`${index}:${tool.name}`, seed);
    const args = given ?? JSON.stringify(sampleFromSchema(tool.parameters, seededRandom(callSeed)) ?? {});
    return { id: callId(callSeed), name: tool.name, arguments: args };
  });
}

/** A tool to call, and the arguments the directive gave for it (JSON text), if any. */
interface Chosen {
  tool: ToolDefinition;
  given?: string | undefined;
}

function chooseTools(
  tools: readonly ToolDefinition[],
  choice: ChatCall['toolChoice'],
  directive: SimulatedDirectives['toolCall'],
  seed: number,
): Chosen[] {
  const byName = (name: string) => tools.find((tool) => tool.name === name);
  const seeded = () => ({ tool: tools[Math.floor(seededRandom(seed)() * tools.length)] as ToolDefinition });
  if (typeof choice === 'object') {
    const forced = byName(choice.name);
    const given = directedArguments(directive, choice.name);
    return forced === undefined ? [] : [{ tool: forced, given }];
  }
  if (directive !== undefined) {
    if (directive === true) return [seeded()];
    const calls: readonly (string | NamedCall)[] = typeof directive === 'string' ? [directive] : directive;
    const named = calls.flatMap((call): Chosen[] => {
      const { name, arguments: given } = typeof call === 'string' ? { name: call } : call;
      const tool = byName(name);
      return tool === undefined ? [] : [{ tool, given }];
    });
    if (named.length > 0) return named;
  }
  return choice === 'required' ? [seeded()] : [];
}

/** The arguments the directive gives for the tool a `toolChoice` forces, if it names it with some. */
function directedArguments(directive: SimulatedDirectives['toolCall'], name: string): string | undefined {
  if (directive === undefined || directive === true || typeof directive === 'string') return undefined;
  for (const call of directive) if (typeof call !== 'string' && call.name === name) return call.arguments;
  return undefined;
}

/** An id unique in practice: the seed hashes the whole conversation, which every turn extends. */
function callId(seed: number): string {
  const high = seed.toString(16).padStart(8, '0');
  const low = fnv1a(high, seed).toString(16).padStart(8, '0');
  return `call_sim_${high}${low}`;
}
