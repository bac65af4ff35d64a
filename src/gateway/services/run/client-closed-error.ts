import { ApiError } from '../../../platform/errors.ts';

/**
 * The client went away before the answer ended: the catalogue's `client_closed` (499). Never
 * sent, as there is no one left to read it (an answer written to the closed socket goes nowhere);
 * what it decides is the ledger's status.
 */
export class ClientClosedError extends ApiError {
  constructor() {
    super('client_closed', 'the client closed the request before the answer ended');
    this.name = 'ClientClosedError';
  }
}
