import type { CircuitSettings, RetrySettings } from '../../config/config-types.ts';
import type { Clock } from '../../platform/clock.ts';
import type { SharedRests } from '../../storage/deployment-rests.ts';
import { type InFlightCounter, InProcessInFlightCounter } from '../../storage/in-flight-counter.ts';
import type { CircuitKey, ProviderHealth } from '../../storage/provider-health.ts';
import { orderByLatency, orderBySession, orderByWeight, shuffle } from '../domain/deployment-order.ts';
import {
  addLatencySample,
  type LatencyEstimate,
  newLatencyEstimate,
  scoreLatency,
  touchLatencyEstimate,
} from '../domain/latency-estimate.ts';
import type { Deployment, DeploymentPool } from '../providers/registry.ts';
import { DeploymentRound, type RoundShape } from './deployment-round.ts';

/** Longest a deployment rests, whatever its Retry-After says: past it, it is tried again. */
export const MAX_REST_MS = 300_000;
/** An in-flight lease outlives the call's own time limit by this, so a live call is never uncounted. */
const LEASE_MARGIN_MS = 10_000;

export interface BalancerDeps {
  health: ProviderHealth;
  retry: RetrySettings;
  circuit: CircuitSettings;
  clock: Clock;
  /** Calls in flight per deployment, for least-busy slots (shared through Redis when set). */
  inFlight?: InFlightCounter;
  /** Rests shared with the other workers of this instance (CONTRACT 6.8); absent in a single process. */
  rests?: SharedRests;
  random?: () => number;
}

/** What this instance knows of one deployment. */
interface DeploymentState {
  /** Monotonic ms until which it rests (0: awake). */
  restUntil: number;
  /** Retryable failures in a row: the rest's backoff grows with them. */
  failures: number;
  latency: LatencyEstimate;
  /** Calls of this instance in flight to it. */
  inFlight: number;
}

/** What a round hands the caller: the deployment to call, and what ends its in-flight count. */
export interface DeploymentPick {
  deployment: Deployment;
  /** Ends the call's in-flight count (idempotent): at once when it failed, when the run finishes otherwise. */
  release: () => void;
}

/**
 * Which deployment of a slot takes a call (CONTRACT 5.6, decision 0016): each round of the
 * upstream caller's retries calls the slot's deployments that serve the model, each at most once,
 * in an order that puts a session's deployment first (rendezvous hashing over the healthy ones),
 * else the slot's strategy's choice. A deployment that failed rests (its Retry-After, or a
 * backoff) and is passed over while another is awake; one whose circuit is open is passed over.
 * Latencies and the local in-flight counts are this process's; rests are this instance's (shared
 * by its workers through `rests`); circuits and least-busy's counts are shared through Redis when
 * it is set, else by the workers of the instance.
 */
export class DeploymentBalancer {
  readonly #deps: BalancerDeps;
  readonly #inFlight: InFlightCounter;
  readonly #random: () => number;
  readonly #states = new Map<CircuitKey, DeploymentState>();
  readonly #shapesOfOne = new WeakMap<
    Deployment,
    { alone: Deployment[]; closed: RoundShape; open: RoundShape }
  >();

  constructor(deps: BalancerDeps) {
    this.#deps = deps;
    this.#inFlight = deps.inFlight ?? new InProcessInFlightCounter();
    this.#random = deps.random ?? Math.random;
    deps.rests?.listen((key, restMs) => this.#restAnnounced(key, restMs));
  }

  /**
   * One round over `pool` for `model`: the deployments that serve it, those whose circuit is open
   * set apart, the others in the order to try them. `affinity` is the session's key (with its
   * app), undefined without a session.
   */
  startRound(pool: DeploymentPool, model: string, affinity: string | undefined): DeploymentRound {
    const now = this.#deps.clock.now();
    const deployments = pool.deployments;
    if (deployments.length === 1) return this.#roundOfOne(pool, deployments[0] as Deployment, model, now);
    const monotonic = this.#deps.clock.monotonic();
    const eligible = deployments.filter((deployment) => serves(deployment, model));
    const open: Deployment[] = [];
    const closed: Deployment[] = [];
    for (const deployment of eligible) {
      (this.#deps.health.state(deployment.key, now) === 'open' ? open : closed).push(deployment);
    }
    const awake = closed.filter((deployment) => this.#state(deployment).restUntil <= monotonic);
    let queue: Deployment[];
    if (awake.length === 0) {
      // All rest: as a slot of one always did, they are tried anyway, the soonest awake first.
      queue = closed.sort((a, b) => this.#state(a).restUntil - this.#state(b).restUntil);
    } else if (awake.length === 1) queue = awake;
    else if (affinity !== undefined) queue = orderBySession(awake, affinity);
    else queue = this.#orderByStrategy(pool, awake, monotonic);
    // When all rest, the soonest awake goes first whatever the counts.
    const leastBusyFirst = pool.strategy === 'least-busy' && affinity === undefined && awake.length > 1;
    return new DeploymentRound(this, pool, queue, { eligible: eligible.length, open, leastBusyFirst });
  }

  /** The deployment failed: it rests for `retryAfterMs`, or a backoff that grows with its failures in a row. */
  rest(deployment: Deployment, retryAfterMs: number | undefined, retryable: boolean): void {
    const state = this.#state(deployment);
    const { retry, circuit } = this.#deps;
    if (retryable) state.failures++;
    // A key or quota refusal is not a passing fault: it rests as long as an open circuit would.
    const backoff = retryable
      ? Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (state.failures - 1))
      : circuit.cooldownMs;
    const restMs = Math.min(retryAfterMs ?? backoff, MAX_REST_MS);
    state.restUntil = Math.max(state.restUntil, this.#deps.clock.monotonic() + restMs);
    this.#deps.rests?.announce(deployment.key, restMs);
  }

  /** Another worker announced a rest of `key` (0: it answered there, so it is awake). */
  #restAnnounced(key: CircuitKey, restMs: number): void {
    const state = this.#stateOf(key);
    state.restUntil = restMs === 0 ? 0 : Math.max(state.restUntil, this.#deps.clock.monotonic() + restMs);
  }

  /**
   * The deployment of `pool` answered at `answeredAt` (monotonic ms), its first byte `firstByteMs`
   * after the call started. Only a latency slot of several keeps the sample.
   */
  answered(pool: DeploymentPool, deployment: Deployment, firstByteMs: number, answeredAt: number): void {
    const state = this.#state(deployment);
    state.failures = 0;
    // Only a wake from a rest is news to the other workers; a plain answer is not.
    if (state.restUntil !== 0) this.#deps.rests?.announce(deployment.key, 0);
    state.restUntil = 0;
    if (measuresLatency(pool)) addLatencySample(state.latency, firstByteMs, answeredAt);
  }

  /** Ms until the first of `deployments` wakes from its rest; 0 when one is awake. */
  wakeInMs(deployments: readonly Deployment[]): number {
    const monotonic = this.#deps.clock.monotonic();
    let soonest = Number.POSITIVE_INFINITY;
    for (const deployment of deployments) {
      soonest = Math.min(soonest, Math.max(0, this.#state(deployment).restUntil - monotonic));
    }
    return Number.isFinite(soonest) ? soonest : 0;
  }

  /** This instance's calls in flight to the deployment `key` (metrics). */
  inFlightOf(key: CircuitKey): number {
    return this.#states.get(key)?.inFlight ?? 0;
  }

  /** Whether the deployment `key` rests now (metrics). */
  isResting(key: CircuitKey): boolean {
    return (this.#states.get(key)?.restUntil ?? 0) > this.#deps.clock.monotonic();
  }

  /**
   * Counts a call to `deployment` as in flight: in this instance, and for a least-busy slot in the
   * shared counter (`lease`, when the round already took it: least busy first). Answers at once
   * when there is nothing to wait for, so a slot of one costs no promise.
   */
  pick(
    pool: DeploymentPool,
    deployment: Deployment,
    lease?: string,
  ): DeploymentPick | Promise<DeploymentPick> {
    if (lease !== undefined || pool.strategy !== 'least-busy' || pool.deployments.length === 1) {
      return this.#counted(pool, deployment, lease);
    }
    const now = this.#deps.clock.now();
    return this.#inFlight
      .enter(deployment.key, now, now + pool.callLimitMs + LEASE_MARGIN_MS)
      .then((held) => this.#counted(pool, deployment, held));
  }

  #counted(pool: DeploymentPool, deployment: Deployment, held: string | undefined): DeploymentPick {
    const state = this.#state(deployment);
    state.inFlight++;
    if (measuresLatency(pool)) touchLatencyEstimate(state.latency, this.#deps.clock.monotonic());
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      state.inFlight--;
      if (held !== undefined) void this.#inFlight.leave(deployment.key, held).catch(() => {});
    };
    return { deployment, release };
  }

  /** Enters the least busy of `queue` in the shared counter: its index, its lease, every count. */
  enterLeastBusy(pool: DeploymentPool, queue: readonly Deployment[]) {
    const now = this.#deps.clock.now();
    const keys = queue.map((deployment) => deployment.key);
    return this.#inFlight.enterLeastBusy(keys, now, now + pool.callLimitMs + LEASE_MARGIN_MS);
  }

  /**
   * A slot of one deployment (every slot without a list): no order to choose. Its round's lists
   * are made once (a round never changes them), so the common case allocates only the round.
   */
  #roundOfOne(pool: DeploymentPool, deployment: Deployment, model: string, now: number): DeploymentRound {
    if (!serves(deployment, model)) return new DeploymentRound(this, pool, NOTHING, NONE_SERVES);
    let shapes = this.#shapesOfOne.get(deployment);
    if (shapes === undefined) {
      const alone = Object.freeze([deployment]) as Deployment[];
      shapes = {
        alone,
        closed: { eligible: 1, open: NOTHING, leastBusyFirst: false },
        open: { eligible: 1, open: alone, leastBusyFirst: false },
      };
      this.#shapesOfOne.set(deployment, shapes);
    }
    return this.#deps.health.state(deployment.key, now) === 'open'
      ? new DeploymentRound(this, pool, NOTHING, shapes.open)
      : new DeploymentRound(this, pool, shapes.alone, shapes.closed);
  }

  #orderByStrategy(pool: DeploymentPool, awake: Deployment[], monotonic: number): Deployment[] {
    switch (pool.strategy) {
      case 'weighted':
        return orderByWeight(awake, this.#random);
      case 'latency':
        return orderByLatency(
          awake.map((item) => ({ item, scoreMs: scoreLatency(this.#state(item).latency, monotonic) })),
          this.#random,
        );
      case 'least-busy':
        // The shared counts decide the first (DeploymentRound); ties go to the first in this order.
        return shuffle(awake, this.#random);
    }
  }

  #state(deployment: Deployment): DeploymentState {
    return this.#stateOf(deployment.key);
  }

  #stateOf(key: CircuitKey): DeploymentState {
    let state = this.#states.get(key);
    if (state === undefined) {
      state = { restUntil: 0, failures: 0, latency: newLatencyEstimate(), inFlight: 0 };
      this.#states.set(key, state);
    }
    return state;
  }
}

const NOTHING = Object.freeze([]) as unknown as Deployment[];
const NONE_SERVES: RoundShape = { eligible: 0, open: NOTHING, leastBusyFirst: false };

function measuresLatency(pool: DeploymentPool): boolean {
  return pool.strategy === 'latency' && pool.deployments.length > 1;
}

/** A deployment without a model list serves every model of its slot (CONTRACT 5.9). */
function serves(deployment: Deployment, model: string): boolean {
  return deployment.models === undefined || deployment.models.includes(model);
}
