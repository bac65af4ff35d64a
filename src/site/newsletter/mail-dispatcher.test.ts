import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../platform/logger.ts';
import { MailDispatcher } from './mail-dispatcher.ts';
import type { MailMessage, MailTransport } from './mail-transport.ts';

const logger = createLogger({ level: 'silent' });
const message: MailMessage = {
  to: 'a@example.com',
  subject: 's',
  text: 't',
  html: 'h',
  headers: {},
  links: {},
};

function flakyTransport(failures: number): MailTransport & { calls: number; sent: number } {
  const transport = {
    calls: 0,
    sent: 0,
    async send() {
      transport.calls++;
      if (transport.calls <= failures) throw new Error('421 try later');
      transport.sent++;
    },
  };
  return transport;
}

describe('MailDispatcher', () => {
  it('retries a failing send and delivers once', async () => {
    const transport = flakyTransport(2);
    const dispatcher = new MailDispatcher(transport, logger, { attempts: 3, retryDelayMs: 1 });
    dispatcher.dispatch(message);
    await dispatcher.idle();
    assert.equal(transport.calls, 3);
    assert.equal(transport.sent, 1);
  });

  it('gives up after its attempts without throwing', async () => {
    const transport = flakyTransport(99);
    const dispatcher = new MailDispatcher(transport, logger, { attempts: 3, retryDelayMs: 1 });
    dispatcher.dispatch(message);
    await dispatcher.idle();
    assert.equal(transport.calls, 3);
    assert.equal(transport.sent, 0);
  });

  it('on close, cuts retry waits short and waits for the mail under way', async () => {
    const transport = flakyTransport(1);
    const dispatcher = new MailDispatcher(transport, logger, { attempts: 3, retryDelayMs: 60_000 });
    dispatcher.dispatch(message);
    await new Promise((resolve) => setImmediate(resolve));
    const started = Date.now();
    await dispatcher.close();
    assert.ok(Date.now() - started < 5_000, 'did not wait out the retry delay');
    assert.equal(transport.sent, 1, 'the retry still went out');
  });
});
