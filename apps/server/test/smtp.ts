import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message as it arrived over SMTP, parsed by mailparser. */
export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  parsed: ParsedMail;
  raw: string;
}

export interface TestSmtp {
  /** smtp://user:pass@127.0.0.1:<port> for SMTP_URL. */
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Resolves with the first message (already arrived or arriving) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** From now on, answer every DATA with this SMTP reply (e.g. 451 temporary, 550 permanent); null: accept again. */
  refuseWith(reply: { code: number; message: string } | null): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server for tests (issue 22): smtp-server on 127.0.0.1 with AUTH PLAIN/LOGIN (user `test`, password
 * `secret`), no TLS; every message is parsed with mailparser and kept in `received`.
 */
export async function startTestSmtp(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: { match: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }[] = [];
  let refusal: { code: number; message: string } | null = null;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'test' && auth.password === 'secret') callback(null, { user: 'test' });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusal) {
          const err = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const mail: ReceivedMail = {
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              raw,
            };
            received.push(mail);
            for (const w of [...waiters]) {
              if (w.match(mail)) {
                waiters.splice(waiters.indexOf(w), 1);
                w.resolve(mail);
              }
            }
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://test:secret@127.0.0.1:${port}`,
    port,
    received,
    waitFor(match, timeoutMs = 10_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter = {
          match,
          resolve: (m: ReceivedMail) => {
            clearTimeout(timer);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms (received ${received.length})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    refuseWith(reply) {
      refusal = reply;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a message's text part that starts with `prefix` (e.g. PUBLIC_URL + '/verify-email'). */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const text = mail.parsed.text ?? '';
  const found = text.split(/\s+/).find((w) => w.startsWith(prefix));
  if (!found) throw new Error(`no link starting with ${prefix} in: ${text.slice(0, 500)}`);
  return found.replace(/[).,>]+$/, '');
}
