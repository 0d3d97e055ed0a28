import { randomBytes } from 'node:crypto';
import type { TestApp } from './helpers.js';
import type { ReceivedMail, TestSmtp } from './smtp.js';

/** The site's address in the identity tests' links. */
export const PUBLIC_URL = 'http://brokerage.test';

/**
 * Delivers what the outbox holds over the real SMTP server (the mail worker's tick) and waits for the newest message
 * of `template` to `to`, as it ARRIVED (matched by its Message-ID).
 */
export async function arrivedMail(t: TestApp, smtp: TestSmtp, to: string, template: string): Promise<ReceivedMail> {
  const row = await t.db
    .selectFrom('mail_outbox')
    .select('message_id')
    .where('to_address', '=', to)
    .where('template', '=', template)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!row) throw new Error(`no ${template} mail to ${to} in the outbox`);
  await t.app.mailWorker.tick(new Date(Date.now() + 1000));
  return smtp.waitFor((m) => m.parsed.messageId === row.message_id);
}

/** How many messages of `template` the outbox holds for `to`. */
export async function outboxCount(t: TestApp, to: string, template?: string): Promise<number> {
  let q = t.db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('to_address', '=', to);
  if (template) q = q.where('template', '=', template);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** The link of a page (`/verify-email`, `/reset-password`, `/invitation`) in a message's text part. */
export function pageLink(mail: ReceivedMail, page: string): URL {
  const prefix = PUBLIC_URL + page + '?';
  const text = mail.parsed.text ?? '';
  const at = text.indexOf(prefix);
  if (at < 0) throw new Error(`no ${page} link in: ${text.slice(0, 500)}`);
  const link = /^[^\s"'<>)]+/.exec(text.slice(at))![0];
  return new URL(link.replace(/[.,]+$/, ''));
}

/** The token of a page's link in a message. */
export function linkToken(mail: ReceivedMail, page: string): string {
  const token = pageLink(mail, page).searchParams.get('token');
  if (!token) throw new Error(`the ${page} link carries no token`);
  return token;
}

export const uniqueEmail = (prefix: string) => `${prefix}.${randomBytes(4).toString('hex')}@test.local`;

/** A fresh client address for each registration, so the sign-in delays and limits of one test do not meet another's. */
export const randomIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
