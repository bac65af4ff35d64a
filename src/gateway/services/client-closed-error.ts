/** The client went away before the answer was complete. Never sent (there is no one to send it to); recorded as 499. */
export class ClientClosedError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientClosedError';
  }
}

export const CLIENT_CLOSED_STATUS = 499;
