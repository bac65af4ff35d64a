import type { FastifyInstance } from 'fastify';
import { CounterFamily } from '../platform/metrics/metric-families.ts';
import type { MetricsRegistry } from '../platform/metrics/metrics-registry.ts';

const SIGNUP_PATH = '/api/newsletter';

/** Surface B's series, in the application's one registry (GET /metrics is on surface A). */
export class SiteMetrics {
  readonly #signups = new CounterFamily(
    'site_newsletter_signups_total',
    'POST /api/newsletter by outcome: accepted (the same answer for new and known addresses), rate_limited, invalid, error.',
    ['outcome'],
  );
  readonly #toolCalls = new CounterFamily(
    'site_mcp_tool_calls_total',
    'MCP tools/call requests that reached a tool, by tool and outcome (ok, or error: a tool error result).',
    ['tool', 'outcome'],
  );

  constructor(registry: MetricsRegistry) {
    registry.add(this.#signups);
    registry.add(this.#toolCalls);
  }

  /** Counts each signup when its answer has gone out, whatever refused or accepted it. */
  countSignups(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      if (request.method === 'POST' && request.routeOptions.url === SIGNUP_PATH)
        this.#signups.series([signupOutcome(reply.statusCode)]).inc();
      done();
    });
  }

  readonly toolCalled = (tool: string, outcome: 'ok' | 'error'): void => {
    this.#toolCalls.series([tool, outcome]).inc();
  };
}

function signupOutcome(status: number): string {
  if (status < 300) return 'accepted';
  if (status === 429) return 'rate_limited';
  return status < 500 ? 'invalid' : 'error';
}
