import type {
  ConfirmOutcome,
  SignupOutcome,
  SignupRequest,
  SubscriberRecord,
  SubscriberStatus,
  UnsubscribeOutcome,
} from './ports.ts';

/**
 * The subscriber state machine, pure, shared by every SubscriberStore implementation: each store
 * reads the row inside its transaction, asks these functions what to do, and writes the answer.
 *
 *     (none) ──signup──▶ pending ──confirm──▶ subscribed
 *        │                  │                     │
 *        └─signup (no DOI)──┼─────────────────────┤
 *                           └────unsubscribe──────┴──▶ unsubscribed ──signup──▶ pending | subscribed
 */
export interface Transition<Outcome> {
  outcome: Outcome;
  /** The row after the transition (the row as it was when nothing changes); undefined when there is none. */
  record: SubscriberRecord | undefined;
  write: 'insert' | 'update' | 'none';
  /** The status changed, so the mailing-list upstream has to hear of it. */
  statusChanged: boolean;
}

export interface SignupTransition extends Transition<SignupOutcome> {
  record: SubscriberRecord;
  confirmationDue: boolean;
}

export function planSignup(
  existing: SubscriberRecord | undefined,
  request: SignupRequest,
  newId: string,
): SignupTransition {
  const at = request.consent.at;
  const status: SubscriberStatus = request.doubleOptIn ? 'pending' : 'subscribed';
  const fresh = {
    status,
    updatedAt: at,
    consent: request.consent,
    confirmedAt: status === 'subscribed' ? at : null,
    unsubscribedAt: null,
    confirmTokenHash: request.doubleOptIn ? request.confirmTokenHash : null,
    confirmExpiresAt: request.doubleOptIn ? request.confirmExpiresAt : null,
    confirmSentAt: request.doubleOptIn ? at : null,
  };
  const due = request.doubleOptIn;
  if (existing === undefined) {
    const record = { id: newId, email: request.email, createdAt: at, ...fresh };
    return { outcome: 'created', record, write: 'insert', statusChanged: true, confirmationDue: due };
  }
  const unchanged: SignupTransition = {
    outcome: 'unchanged',
    record: existing,
    write: 'none',
    statusChanged: false,
    confirmationDue: false,
  };
  switch (existing.status) {
    case 'subscribed':
      // Nothing to do, and the consent on record stays the one that actually subscribed the address.
      return unchanged;
    case 'unsubscribed':
      return {
        outcome: 'resubscribed',
        record: { ...existing, ...fresh },
        write: 'update',
        statusChanged: true,
        confirmationDue: due,
      };
    case 'pending': {
      if (!request.doubleOptIn) {
        return {
          outcome: 'subscribed',
          record: { ...existing, ...fresh },
          write: 'update',
          statusChanged: true,
          confirmationDue: false,
        };
      }
      // Anyone can type someone else's address: one confirmation mail per address per interval.
      const sent = existing.confirmSentAt;
      if (sent !== null && at - sent < request.resendAfterMs) return unchanged;
      // The new token replaces the old one: only the latest mail's link confirms.
      return {
        outcome: 'resent',
        record: { ...existing, ...fresh },
        write: 'update',
        statusChanged: false,
        confirmationDue: true,
      };
    }
  }
}

/** `existing` is the subscriber holding the confirm token, if any. */
export function planConfirm(existing: SubscriberRecord | undefined, at: number): Transition<ConfirmOutcome> {
  const none = (outcome: ConfirmOutcome): Transition<ConfirmOutcome> => ({
    outcome,
    record: existing,
    write: 'none',
    statusChanged: false,
  });
  if (existing === undefined || existing.status === 'unsubscribed') return none('invalid');
  // A second click on the same link changes nothing and says so, rather than showing an error.
  if (existing.status === 'subscribed') return none('already_confirmed');
  if (existing.confirmExpiresAt === null || existing.confirmExpiresAt <= at) return none('expired');
  return {
    outcome: 'confirmed',
    record: { ...existing, status: 'subscribed', confirmedAt: at, updatedAt: at },
    write: 'update',
    statusChanged: true,
  };
}

/** `existing` is the subscriber the unsubscribe token was issued to, if any. */
export function planUnsubscribe(
  existing: SubscriberRecord | undefined,
  at: number,
): Transition<UnsubscribeOutcome> {
  if (existing === undefined)
    return { outcome: 'invalid', record: undefined, write: 'none', statusChanged: false };
  if (existing.status === 'unsubscribed') {
    return { outcome: 'already_unsubscribed', record: existing, write: 'none', statusChanged: false };
  }
  return {
    outcome: 'unsubscribed',
    // The confirm token dies with the subscription, so an old confirmation mail cannot undo this.
    record: {
      ...existing,
      status: 'unsubscribed',
      unsubscribedAt: at,
      confirmTokenHash: null,
      confirmExpiresAt: null,
      updatedAt: at,
    },
    write: 'update',
    statusChanged: true,
  };
}

/** When the subscription began, as the mailing-list upstream is told: confirmation, else the signup. */
export function deriveSubscribedAt(record: SubscriberRecord): number {
  return record.confirmedAt ?? record.consent.at;
}
