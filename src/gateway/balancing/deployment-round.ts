import type { Deployment, DeploymentPool } from '../providers/registry.ts';
import type { DeploymentBalancer, DeploymentPick } from './deployment-balancer.ts';

export interface RoundShape {
  /** How many of the slot's deployments serve the model. */
  eligible: number;
  /** Those of them whose circuit is open: passed over without a call. */
  open: readonly Deployment[];
  /** A least-busy slot without a session: the shared counts pick the first. */
  leastBusyFirst: boolean;
}

/**
 * One round of calls to a slot: each deployment in `queue` at most once, in order. Built by
 * DeploymentBalancer.startRound; `next` counts each pick in flight before the caller calls it.
 */
export class DeploymentRound {
  readonly eligible: number;
  readonly open: readonly Deployment[];
  readonly #balancer: DeploymentBalancer;
  readonly #pool: DeploymentPool;
  #queue: Deployment[];
  #leastBusyFirst: boolean;
  #next = 0;

  constructor(balancer: DeploymentBalancer, pool: DeploymentPool, queue: Deployment[], shape: RoundShape) {
    this.#balancer = balancer;
    this.#pool = pool;
    this.#queue = queue;
    this.eligible = shape.eligible;
    this.open = shape.open;
    this.#leastBusyFirst = shape.leastBusyFirst;
  }

  /** The deployments of the round, in order (the least busy first once `next` has chosen it). */
  get queue(): readonly Deployment[] {
    return this.#queue;
  }

  /**
   * The next deployment to call, counted in flight; undefined when the round is over. A promise
   * only where the count waits on the shared counter (least-busy).
   */
  next(): DeploymentPick | undefined | Promise<DeploymentPick | undefined> {
    if (this.#leastBusyFirst) {
      this.#leastBusyFirst = false;
      return this.#enterLeastBusy();
    }
    const deployment = this.#queue[this.#next];
    if (deployment === undefined) return undefined;
    this.#next++;
    return this.#balancer.pick(this.#pool, deployment);
  }

  /** Enters the least busy in the shared counter; the others follow from least to most busy. */
  async #enterLeastBusy(): Promise<DeploymentPick> {
    const entry = await this.#balancer.enterLeastBusy(this.#pool, this.#queue);
    // Stable: ties keep the (shuffled) order.
    this.#queue = this.#queue
      .map((deployment, index) => ({ deployment, index, count: entry.counts[index] ?? 0 }))
      .sort((a, b) =>
        a.index === entry.index ? -1 : b.index === entry.index ? 1 : a.count - b.count || a.index - b.index,
      )
      .map((ranked) => ranked.deployment);
    this.#next = 1;
    return this.#balancer.pick(this.#pool, this.#queue[0] as Deployment, entry.lease);
  }
}
