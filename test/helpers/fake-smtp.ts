import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

export interface FakeSmtp {
  server: Server;
  port: number;
  /** Each delivered message: envelope and raw data. */
  messages: { from: string; to: string[]; data: string; auth: string | undefined }[];
  /** When set, RCPT TO is refused with this reply. */
  refuseRecipient: string | undefined;
}

/** Just enough of an SMTP server (RFC 5321) for nodemailer: EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT. */
export async function startFakeSmtp(): Promise<FakeSmtp> {
  const fake: FakeSmtp = { server: createServer(), port: 0, messages: [], refuseRecipient: undefined };
  fake.server.on('connection', (socket: Socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '', auth: undefined as string | undefined };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake.smtp ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          fake.messages.push(current);
          current = { from: '', to: [], data: '', auth: current.auth };
          reply('250 2.0.0 queued');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.split(' ')[0]?.toUpperCase();
        if (verb === 'EHLO') reply('250-fake.smtp\r\n250-AUTH PLAIN\r\n250 8BITMIME');
        else if (verb === 'AUTH') {
          current.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8');
          reply('235 2.7.0 ok');
        } else if (verb === 'MAIL') {
          current.from = line;
          reply('250 ok');
        } else if (verb === 'RCPT') {
          if (fake.refuseRecipient !== undefined) reply(fake.refuseRecipient);
          else {
            current.to.push(line);
            reply('250 ok');
          }
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else if (verb === 'RSET') reply('250 ok');
        else reply('502 not implemented');
      }
    });
  });
  fake.server.listen(0, '127.0.0.1');
  await once(fake.server, 'listening');
  fake.port = (fake.server.address() as { port: number }).port;
  return fake;
}
