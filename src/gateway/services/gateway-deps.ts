import type { Config } from '../../config/config-types.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Tokenizer } from '../domain/token-count.ts';
import type { GovernanceCache } from '../governance/governance-cache.ts';
import type { Guardrails } from '../guardrails/guardrails.ts';
import type { SchemaCompiler } from '../json/schema-compiler.ts';
import type { AppLimiter } from '../limits/app-limiter.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { UsageRecorder } from './ledger/usage-recorder.ts';
import type { ResponseCache } from './response-cache/response-cache.ts';
import type { RunMetrics } from './run/request-run-metrics.ts';
import type { UpstreamCaller } from './upstream/upstream-caller.ts';

/** What the gateway's services need, built once at start-up. */
export interface GatewayDeps {
  config: Config;
  registry: ProviderRegistry;
  priceBook: PriceBook;
  caller: UpstreamCaller;
  recorder: UsageRecorder;
  schemas: SchemaCompiler;
  limiter: AppLimiter;
  /** Counts tokens for answers whose upstream reported none (and for the simulated provider). */
  tokenizer: Tokenizer;
  clock: Clock;
  /** The response cache (CONTRACT 5.5): off for every request the configuration and headers leave off. */
  responseCache: ResponseCache;
  /**
   * Teams, apps' settings and keys (CONTRACT 6.5). The application always sets it; a unit test's
   * fake deps may leave it out, and then no app has a team or an allow list.
   */
  governance?: GovernanceCache | undefined;
  /** The guardrails stage (CONTRACT 6.6); inactive when no guard is configured. */
  guardrails: Guardrails;
  /** Undefined when metrics are off (METRICS_ENABLED=false). */
  metrics?: RunMetrics | undefined;
}
