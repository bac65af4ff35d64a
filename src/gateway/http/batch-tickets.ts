import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** The header a batch runner's in-process request carries its ticket in. */
export const BATCH_TICKET_HEADER = 'x-gateway-batch-ticket';

/** What a batch request runs as: its app, its batch, and the id its ledger row must have. */
export interface BatchTicket {
  app: string;
  batchId: string;
  ledgerId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when a batch runner sent the request (its ticket redeemed by the auth hook). */
    batchTicket?: BatchTicket;
  }
}

/**
 * One-use tickets for the batch runner's requests, which go through the same doors as live ones
 * (app.inject) without the app's secret, which the gateway never keeps. A ticket is 32 random
 * bytes, known only inside this process, and is gone once redeemed: a client that sends the
 * header gets the 401 of any wrong credential.
 */
export class BatchTickets {
  readonly #open = new Map<string, BatchTicket>();

  issue(ticket: BatchTicket): string {
    const token = randomBytes(32).toString('base64url');
    this.#open.set(token, ticket);
    return token;
  }

  /** Forgets a ticket whose request never reached the auth hook. */
  drop(token: string): void {
    this.#open.delete(token);
  }

  /** The ticket the request carries, once; undefined when it carries none. False for an unknown one. */
  redeem(request: FastifyRequest): BatchTicket | false | undefined {
    const token = request.headers[BATCH_TICKET_HEADER];
    if (token === undefined) return undefined;
    const ticket = typeof token === 'string' ? this.#open.get(token) : undefined;
    if (ticket === undefined) return false;
    this.#open.delete(token as string);
    request.batchTicket = ticket;
    return ticket;
  }
}
