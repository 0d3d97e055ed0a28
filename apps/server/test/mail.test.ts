import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mailer } from '../src/modules/mail/mailer.js';
import { MAIL_RETRY_WINDOW_MS } from '../src/modules/mail/worker.js';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { createTestApp, dbKinds, testConfig, type TestApp } from './helpers.js';
import { startTestSmtp, linkIn, type ReceivedMail, type TestSmtp } from './smtp.js';
import { fund, registerClient, type TestClient } from './trading-helpers.js';

const PUBLIC_URL = 'https://broker.test';
const FROM = 'Broker Desk <no-reply@broker.test>';
const KEY = randomBytes(32).toString('base64');
const TZ = 'Europe/Kyiv';
const HOUR = 3600_000;

/** Every log line of this file's apps (at info level), read at the end: no body, link, token or address in any. */
const logLines: string[] = [];
const logStream = { write: (line: string) => void logLines.push(line) };

type OutboxRow = {
  id: number;
  template: string;
  to_address: string;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  next_attempt_at: Date;
  text_body: string;
};

function expiry(): string {
  const { year, month } = monthIn(TZ, new Date());
  return `${String(month).padStart(2, '0')}/${String((year + 2) % 100).padStart(2, '0')}`;
}

/**
 * Issue 22 §1 and §5 over a REAL SMTP server (smtp-server on 127.0.0.1, messages parsed by mailparser): mail written in
 * the action's transaction and delivered by the worker (tick(now) with a clock), refusals and an unreachable server
 * retried with backoff for 24 h, a 5xx failing at once, the kept mail of a setup without SMTP on /crm/outbox,
 * withdrawal decisions and deposits e-mailed to the client, the RFC 8058 one-click unsubscribe, and the digest.
 */
describe.each(dbKinds())('mail on %s', (kind) => {
  let smtp: TestSmtp;
  let t: TestApp;
  let mailer: Mailer;
  let superadmin: { id: string; token: string };
  let client: TestClient;
  const secrets: string[] = [];

  const rows = async (app: TestApp, to: string): Promise<OutboxRow[]> =>
    (
      await app.db
        .selectFrom('mail_outbox')
        .select([
          'id',
          'template',
          'to_address',
          'status',
          'attempts',
          'last_error',
          'created_at',
          'next_attempt_at',
          'text_body',
        ])
        .where('to_address', '=', to)
        .orderBy('id')
        .execute()
    ).map((r) => ({
      ...r,
      id: Number(r.id),
      attempts: Number(r.attempts),
      created_at: new Date(r.created_at as unknown as string),
      next_attempt_at: new Date(r.next_attempt_at as unknown as string),
    }));
  const rowById = async (app: TestApp, id: number): Promise<OutboxRow> => {
    const r = await app.db
      .selectFrom('mail_outbox')
      .select('to_address')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return (await rows(app, r.to_address)).find((x) => x.id === id)!;
  };
  /** A moment surely past a row just written (the database keeps microseconds, a Date milliseconds). */
  const soon = () => new Date(Date.now() + 1000);
  /** A header as sent (mailparser folds List-* headers into one object; the raw line is what a mail client reads). */
  const header = (m: ReceivedMail, name: string): string | undefined => {
    const line = m.parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
    return line
      ?.replace(/\r?\n[ \t]+/g, ' ')
      .slice(name.length + 1)
      .trim();
  };
  const addressOf = (m: ReceivedMail) => (Array.isArray(m.parsed.to) ? m.parsed.to[0] : m.parsed.to)?.text;

  /** A staff-independent bulk message to a fresh user, written in its own transaction. */
  const brokerMessage = async (mail: Mailer, app: TestApp, text: string) => {
    const user = await app.createUser('client');
    const id = await app.db.transaction().execute((trx) =>
      mail.enqueue(trx, {
        to: user.email,
        userId: user.id,
        template: 'broker_message',
        language: 'en',
        data: { name: 'Anna', text, link: mail.link('/trade') },
      }),
    );
    return { user, id: id! };
  };

  beforeAll(async () => {
    logLines.length = 0;
    smtp = await startTestSmtp();
    const env = {
      SMTP_URL: smtp.url,
      MAIL_FROM: FROM,
      PUBLIC_URL,
      CARD_ENCRYPTION_KEY: KEY,
      BUSINESS_TIMEZONE: TZ,
      LOG_LEVEL: 'info',
      LOGIN_RATE_PER_MINUTE: '100000',
    };
    t = await createTestApp(kind, env, { logStream });
    mailer = new Mailer(testConfig(env), t.app.log);
    superadmin = await t.userWithToken('superadmin');
    client = await registerClient(t, 'Mira Client');
    await t.db
      .updateTable('users')
      .set({ email_verified_at: sql`now()` as never, language: 'en' })
      .where('id', '=', client.userId)
      .execute();
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('delivers a message written in a transaction over SMTP: From, To, Subject, both parts, List-Unsubscribe on bulk', async () => {
    const text = `Your <b>statement</b> & "report" ${randomBytes(4).toString('hex')}`;
    const { user, id } = await brokerMessage(mailer, t, text);
    expect((await rowById(t, id)).status).toBe('pending');
    // (Other mail may be due too: the client's registration wrote a verification message.)
    expect((await t.app.mailWorker.tick(soon())).sent).toBeGreaterThanOrEqual(1);
    const m = await smtp.waitFor((x) => x.envelopeTo.includes(user.email));
    expect(m.envelopeFrom).toBe('no-reply@broker.test');
    expect(m.parsed.from?.value).toEqual([{ name: 'Broker Desk', address: 'no-reply@broker.test' }]);
    expect(addressOf(m)).toBe(user.email);
    expect(m.parsed.subject?.startsWith('A new message from your broker — ')).toBe(true);
    expect(m.parsed.text).toContain(text);
    expect(m.parsed.text).toContain(`${PUBLIC_URL}/trade`);
    // The HTML part escapes every value: the message's markup is shown, never interpreted.
    expect(m.parsed.html).toContain('Your &lt;b&gt;statement&lt;/b&gt; &amp; &quot;report&quot;');
    expect(m.parsed.html).not.toContain('<b>statement');
    const unsubscribePage = linkIn(m, `${PUBLIC_URL}/unsubscribe?token=`);
    expect(m.parsed.html).toContain(unsubscribePage.replace(/&/g, '&amp;'));
    const listUnsubscribe = String(header(m, 'List-Unsubscribe'));
    expect(listUnsubscribe).toMatch(new RegExp(`^<${PUBLIC_URL}/api/mail/unsubscribe\\?token=[\\w-]+>$`));
    expect(header(m, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(m.parsed.messageId).toBe(
      (await t.db.selectFrom('mail_outbox').select('message_id').where('id', '=', id).executeTakeFirstOrThrow())
        .message_id,
    );
    secrets.push(text, unsubscribePage, listUnsubscribe, user.email);
    const sent = await rowById(t, id);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, last_error: null });

    // Security mail carries no unsubscribe header or link.
    const staff = await t.createUser('retention_manager');
    await t.db.transaction().execute((trx) =>
      mailer.enqueue(trx, {
        to: staff.email,
        userId: staff.id,
        template: 'password_changed',
        language: 'ru',
        data: { name: 'Пётр' },
      }),
    );
    await t.app.mailWorker.tick(soon());
    const security = await smtp.waitFor((x) => x.envelopeTo.includes(staff.email));
    expect(security.parsed.subject?.startsWith('Пароль изменён')).toBe(true);
    expect(header(security, 'List-Unsubscribe') !== undefined).toBe(false);
    expect(security.parsed.text).not.toContain('/unsubscribe');
  });

  it('leaves no mail behind a rolled-back transaction', async () => {
    const user = await t.createUser('client');
    await expect(
      t.db.transaction().execute(async (trx) => {
        await mailer.enqueue(trx, {
          to: user.email,
          userId: user.id,
          template: 'deposit_credited',
          language: 'ru',
          data: { name: 'Rolled', amount: '$5.00' },
        });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await rows(t, user.email)).toEqual([]);
    await t.app.mailWorker.tick(soon());
    expect(smtp.received.some((m) => m.envelopeTo.includes(user.email))).toBe(false);
  });

  it('keeps a message the server refuses with 451 and delivers it once the server accepts again', async () => {
    const { user, id } = await brokerMessage(mailer, t, 'retry me');
    smtp.refuseWith({ code: 451, message: 'Try again later' });
    try {
      const at = soon();
      expect(await t.app.mailWorker.tick(at)).toMatchObject({ retried: 1, sent: 0 });
      const first = await rowById(t, id);
      expect(first.status).toBe('pending');
      expect(first.attempts).toBe(1);
      expect(first.last_error).toContain('451');
      expect(first.last_error).toContain('Try again later');
      expect(first.next_attempt_at.getTime()).toBeGreaterThan(at.getTime());
      // Not due before its backoff runs out.
      expect(await t.app.mailWorker.tick(new Date(first.next_attempt_at.getTime() - 1000))).toMatchObject({
        retried: 0,
        sent: 0,
      });
    } finally {
      smtp.refuseWith(null);
    }
    const pending = await rowById(t, id);
    expect((await t.app.mailWorker.tick(new Date(pending.next_attempt_at.getTime() + 1))).sent).toBeGreaterThanOrEqual(
      1,
    );
    await smtp.waitFor((x) => x.envelopeTo.includes(user.email));
    expect(await rowById(t, id)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('fails a message at once on a 5xx answer, with the SMTP error, and never sends it', async () => {
    const { user, id } = await brokerMessage(mailer, t, 'permanent');
    smtp.refuseWith({ code: 550, message: 'Mailbox unavailable' });
    try {
      expect(await t.app.mailWorker.tick(soon())).toMatchObject({ failed: 1 });
    } finally {
      smtp.refuseWith(null);
    }
    const failed = await rowById(t, id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.last_error).toContain('550');
    expect(failed.last_error).toContain('Mailbox unavailable');
    expect(failed.last_error).not.toContain('http');
    expect(await t.app.mailWorker.tick(new Date(Date.now() + 2 * HOUR))).toMatchObject({ sent: 0 });
    expect(smtp.received.some((m) => m.envelopeTo.includes(user.email))).toBe(false);
  });

  it('e-mails the client a withdrawal decision; the decision stands when the SMTP server refuses', async () => {
    await fund(t, client.accountId, 50_000);
    const file = async () => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/withdraw-requests',
        token: client.token,
        payload: { amount: 100, card_number: '4111111111111111', card_holder: 'Mira Client', card_expiry: expiry() },
      });
      expect(res.statusCode, res.body).toBe(201);
      return Number((res.json() as { id: number }).id);
    };
    const approved = await file();
    smtp.refuseWith({ code: 554, message: 'Transaction failed' });
    try {
      const res = await t.inject({
        method: 'PUT',
        url: `/api/withdraw-requests/${approved}/approve`,
        token: superadmin.token,
      });
      expect(res.statusCode, res.body).toBe(200);
      await t.app.mailWorker.tick(soon());
    } finally {
      smtp.refuseWith(null);
    }
    const approvedRow = await t.db
      .selectFrom('withdraw_requests')
      .select('status')
      .where('id', '=', approved)
      .executeTakeFirstOrThrow();
    expect(approvedRow.status).toBe('approved');
    const approvedMail = (await rows(t, client.email)).filter((r) => r.template === 'withdrawal_approved');
    expect(approvedMail).toHaveLength(1);
    expect(approvedMail[0]).toMatchObject({ status: 'failed' });
    expect(approvedMail[0]!.text_body).toContain('$100.00');
    expect(approvedMail[0]!.text_body).toContain('1111');

    const rejected = await file();
    const reason = `Card holder name does not match ${randomBytes(3).toString('hex')}`;
    const res = await t.inject({
      method: 'PUT',
      url: `/api/withdraw-requests/${rejected}/reject`,
      token: superadmin.token,
      payload: { reason },
    });
    expect(res.statusCode, res.body).toBe(200);
    await t.app.mailWorker.tick(soon());
    const m = await smtp.waitFor(
      (x) => x.envelopeTo.includes(client.email) && (x.parsed.subject ?? '').startsWith('Your withdrawal was rejected'),
    );
    expect(m.parsed.text).toContain(reason);
    expect(m.parsed.text).toContain('$100.00');
    expect(m.parsed.html).toContain(reason);
    // Transactional mail has no List-Unsubscribe.
    expect(header(m, 'List-Unsubscribe') !== undefined).toBe(false);
  });

  it('e-mails the client when a deposit is credited to the trading balance', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/deposits',
      token: superadmin.token,
      payload: { client_id: client.clientId, amount: 250 },
    });
    expect(res.statusCode, res.body).toBe(201);
    await t.app.mailWorker.tick(soon());
    const m = await smtp.waitFor(
      (x) => x.envelopeTo.includes(client.email) && (x.parsed.subject ?? '').startsWith('Funds credited'),
    );
    expect(m.parsed.text).toContain('$250.00');
  });

  it('turns bulk mail off with the RFC 8058 one-click POST; the next bulk message is not written', async () => {
    const { user, id } = await brokerMessage(mailer, t, 'before unsubscribing');
    await t.app.mailWorker.tick(soon());
    const m = await smtp.waitFor((x) => x.envelopeTo.includes(user.email));
    const target = String(header(m, 'List-Unsubscribe')).replace(/^<|>$/g, '');
    const url = target.slice(PUBLIC_URL.length);
    expect(url.startsWith('/api/mail/unsubscribe?token=')).toBe(true);
    secrets.push(target);
    expect(id).toBeGreaterThan(0);

    const bad = await t.inject({
      method: 'POST',
      url: '/api/mail/unsubscribe?token=not-a-real-token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'unsubscribe_link_invalid' });

    const res = await t.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const after = await t.db
      .selectFrom('users')
      .select('mail_opt_out')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(after.mail_opt_out).toBe(true);
    // The page's POST (JSON, or no body at all) works with the same link.
    expect((await t.inject({ method: 'POST', url, payload: {} })).statusCode).toBe(200);
    expect((await t.inject({ method: 'POST', url })).statusCode).toBe(200);

    const next = await t.db.transaction().execute((trx) =>
      mailer.enqueue(trx, {
        to: user.email,
        userId: user.id,
        template: 'broker_message',
        language: 'en',
        data: { name: 'Anna', text: 'after unsubscribing', link: mailer.link('/trade') },
      }),
    );
    expect(next).toBeNull();
    expect((await rows(t, user.email)).map((r) => r.text_body.includes('after unsubscribing'))).toEqual([false]);
    // Security mail still goes.
    const security = await t.db.transaction().execute((trx) =>
      mailer.enqueue(trx, {
        to: user.email,
        userId: user.id,
        template: 'password_changed',
        language: 'en',
        data: { name: 'Anna' },
      }),
    );
    expect(security).not.toBeNull();
  });

  it("sends an opted-in staff member's due reminders once a business day", async () => {
    const manager = await t.createUser('retention_manager', { name: 'Digest Manager' });
    const quiet = await t.createUser('retention_manager');
    await t.db.updateTable('users').set({ digest_opt_in: true }).where('id', '=', manager.id).execute();
    await t.db.updateTable('clients').set({ assigned_manager: manager.id }).where('id', '=', client.clientId).execute();
    const at = async (dayOffset: number, time: string): Promise<Date> => {
      const { rows: r } = await sql<{ at: Date | string }>`
        select ((now() at time zone ${TZ})::date + ${dayOffset}::int + ${time}::time)::timestamp at time zone ${TZ} as at`.execute(
        t.db,
      );
      return new Date(r[0]!.at);
    };
    const reminder = async (title: string, when: Date, createdBy: string, status = 'pending') =>
      t.db
        .insertInto('reminders')
        .values({
          client_id: client.clientId,
          title,
          scheduled_time: when,
          status: status as 'pending',
          created_by: createdBy,
          created_at: new Date(),
          updated_at: new Date(),
        })
        .execute();
    await reminder('Call back about the deposit', await at(0, '12:00'), manager.id);
    await reminder('Overdue KYC check', await at(-1, '15:00'), quiet.id);
    await reminder('Tomorrow only', await at(1, '10:00'), manager.id);
    await reminder('Already done', await at(0, '11:00'), manager.id, 'completed');

    expect(await t.app.mailWorker.digest(await at(0, '07:00'))).toBe(0); // before the digest hour
    expect(await t.app.mailWorker.digest(await at(0, '09:00'))).toBe(1);
    expect(await t.app.mailWorker.digest(await at(0, '18:00'))).toBe(0); // once a day
    const digests = (await rows(t, manager.email)).filter((r) => r.template === 'reminders_digest');
    expect(digests).toHaveLength(1);
    expect((await rows(t, quiet.email)).filter((r) => r.template === 'reminders_digest')).toHaveLength(0);
    await t.app.mailWorker.tick(soon());
    const m = await smtp.waitFor((x) => x.envelopeTo.includes(manager.email));
    expect(m.parsed.subject?.startsWith('Напоминания на сегодня: 2')).toBe(true);
    expect(m.parsed.text).toContain('Call back about the deposit');
    expect(m.parsed.text).toContain('Overdue KYC check');
    expect(m.parsed.text).toContain('Mira Client');
    expect(m.parsed.text).not.toContain('Tomorrow only');
    expect(m.parsed.text).not.toContain('Already done');
    expect(linkIn(m, `${PUBLIC_URL}/crm/calendar`)).toBe(`${PUBLIC_URL}/crm/calendar`);
    expect(header(m, 'List-Unsubscribe') !== undefined).toBe(true);
    // The next business day: tomorrow's reminder is due then.
    expect(await t.app.mailWorker.digest(await at(1, '09:00'))).toBe(1);
    const next = (await rows(t, manager.email)).filter((r) => r.template === 'reminders_digest').at(-1)!;
    expect(next.text_body).toContain('Tomorrow only');
  });

  describe('without SMTP_URL', () => {
    let kept: TestApp;
    let keptMailer: Mailer;
    beforeAll(async () => {
      const env = { PUBLIC_URL, LOG_LEVEL: 'info' };
      kept = await createTestApp(kind, env, { logStream });
      keptMailer = new Mailer(testConfig(env), kept.app.log);
    });
    afterAll(() => kept?.close());

    it('keeps the message and lists it on the outbox with its rendered body (superadmin only)', async () => {
      const user = await kept.createUser('client');
      const link = keptMailer.link('/verify-email', { token: 'kept-token-123' });
      await kept.db.transaction().execute((trx) =>
        keptMailer.enqueue(trx, {
          to: user.email,
          userId: user.id,
          template: 'verify_email',
          language: 'kk',
          data: { name: 'Айгүл', link },
        }),
      );
      expect(await kept.app.mailWorker.tick(soon())).toEqual({ sent: 0, retried: 0, failed: 0 });
      const [stored] = await rows(kept, user.email);
      expect(stored).toMatchObject({ status: 'kept', attempts: 0 });

      const admin = await kept.userWithToken('superadmin');
      const list = await kept.inject({ method: 'GET', url: '/api/mail/outbox?status=kept', token: admin.token });
      expect(list.statusCode, list.body).toBe(200);
      const item = (list.json() as { items: { id: number; to: string; status: string; subject: string }[] }).items.find(
        (i) => i.to === user.email,
      );
      expect(item).toMatchObject({ status: 'kept', subject: expect.stringContaining('Электрондық пошта') as string });
      const searched = await kept.inject({
        method: 'GET',
        url: `/api/mail/outbox?search=${encodeURIComponent(user.email)}`,
        token: admin.token,
      });
      expect((searched.json() as { total: number }).total).toBe(1);
      const none = await kept.inject({ method: 'GET', url: '/api/mail/outbox?status=sent', token: admin.token });
      expect((none.json() as { items: { to: string }[] }).items.some((i) => i.to === user.email)).toBe(false);

      const detail = await kept.inject({ method: 'GET', url: `/api/mail/outbox/${item!.id}`, token: admin.token });
      expect(detail.statusCode).toBe(200);
      const body = detail.json() as { text_body: string; html_body: string; headers: Record<string, string> };
      expect(body.text_body.split('\n')).toContain(link);
      expect(body.html_body).toContain(`href="${link}"`);
      expect(body.headers).toEqual({});
      expect(
        (await kept.inject({ method: 'GET', url: '/api/mail/outbox/999999999', token: admin.token })).statusCode,
      ).toBe(404);

      const other = await kept.userWithToken('admin');
      expect((await kept.inject({ method: 'GET', url: '/api/mail/outbox', token: other.token })).statusCode).toBe(403);
      expect(
        (await kept.inject({ method: 'GET', url: `/api/mail/outbox/${item!.id}`, token: other.token })).statusCode,
      ).toBe(403);
      expect((await kept.inject({ method: 'GET', url: '/api/mail/outbox' })).statusCode).toBe(401);
    });
  });

  describe('with the SMTP server down', () => {
    let down: TestApp;
    let downMailer: Mailer;
    beforeAll(async () => {
      const gone = await startTestSmtp();
      const url = gone.url;
      await gone.close(); // nothing listens on its port any more: connections are refused
      const env = { SMTP_URL: url, PUBLIC_URL, LOG_LEVEL: 'info' };
      down = await createTestApp(kind, env, { logStream });
      downMailer = new Mailer(testConfig(env), down.app.log);
    });
    afterAll(() => down?.close());

    it('retries a message with backoff while the server is unreachable, and fails it after 24 h', async () => {
      const { id } = await brokerMessage(downMailer, down, 'nobody listens');
      expect(await down.app.mailWorker.tick(soon())).toMatchObject({ retried: 1 });
      const first = await rowById(down, id);
      expect(first).toMatchObject({ status: 'pending', attempts: 1 });
      expect(first.last_error).toMatch(/ECONNECTION|ECONNREFUSED/);
      const second = new Date(first.next_attempt_at.getTime() + 1);
      expect(await down.app.mailWorker.tick(second)).toMatchObject({ retried: 1 });
      const again = await rowById(down, id);
      expect(again.attempts).toBe(2);
      // The backoff grows.
      expect(again.next_attempt_at.getTime() - second.getTime()).toBeGreaterThan(
        first.next_attempt_at.getTime() - first.created_at.getTime() - 2000,
      );
      const late = new Date(first.created_at.getTime() + MAIL_RETRY_WINDOW_MS + 1000);
      expect(await down.app.mailWorker.tick(late)).toMatchObject({ failed: 1 });
      const failed = await rowById(down, id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 3 });
      expect(failed.last_error).toMatch(/ECONNECTION|ECONNREFUSED/);
    });
  });

  it('logs deliveries without a body, a link, a token or an address', () => {
    const mailLines = logLines.filter((l) => l.includes('"mail_id"'));
    expect(mailLines.some((l) => l.includes('mail sent'))).toBe(true);
    expect(mailLines.some((l) => l.includes('mail delivery failed'))).toBe(true);
    const tokens = secrets.flatMap((s) => [...s.matchAll(/token=([\w-]+)/g)].map((x) => x[1]!));
    expect(tokens.length).toBeGreaterThan(0);
    for (const line of logLines) {
      for (const s of [...secrets, ...tokens, 'retry me', 'nobody listens', client.email, `${PUBLIC_URL}/`]) {
        expect(line).not.toContain(s);
      }
    }
  });
});
