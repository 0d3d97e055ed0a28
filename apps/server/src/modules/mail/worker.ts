import nodemailer, { type Transporter } from 'nodemailer';
import { sql } from 'kysely';
import { LEADER_LOCKS, LEASES } from '../../platform/bus/leader.js';
import { LeaderPoller } from '../../platform/bus/leader-poller.js';
import type { Db } from '../../platform/db/index.js';
import { runReminderDigest } from './digest.js';
import type { Mailer } from './mailer.js';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Failed deliveries are retried for this long after the message was written, then it is failed (issue 22 §1). */
export const MAIL_RETRY_WINDOW_MS = 24 * 3600 * 1000;
/** A claimed message is not claimed again for this long, so a process that dies mid-delivery only delays it. */
const LEASE_MS = 120_000;
const BATCH = 10;
/** The digest is looked at this often (it sends at most once a business day). */
const DIGEST_EVERY_MS = 60_000;

/** The wait after the n-th failed attempt: 30 s, 1 min, 2 min … doubling, at most an hour. */
export function mailRetryDelayMs(failures: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, failures - 1), 3_600_000);
}

export interface MailWorkerDeps {
  db: Db;
  mail: Mailer;
  /** SMTP_URL; without it nothing is sent (messages are 'kept' and shown on /crm/outbox). */
  smtpUrl: string | undefined;
  /** MAIL_FROM. */
  from: string;
  /** BUSINESS_TIMEZONE, for the staff's daily digest. */
  timeZone: string;
  log?: Log;
  /** With a database URL, only the process holding the mail leader lock delivers (one worker per cluster). */
  databaseUrl?: string | undefined;
  leaderRetryMs?: number;
  leaseMs?: number;
  pollMs?: number;
  /** SMTP connection, greeting and socket timeouts. */
  timeoutMs?: number;
  now?: () => Date;
}

interface ClaimedMail {
  id: number;
  message_id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  headers: Record<string, string>;
  attempts: number;
  created_at: Date;
}

export type MailOutcome = 'sent' | 'retry' | 'failed';

/** What nodemailer rejects with: an SMTP reply code and text, or a connection error's code. */
interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

/**
 * The SMTP failure as kept in last_error and logged: the error's code, the reply code and the server's reply text,
 * with any link and any e-mail address taken out (a server may quote the recipient), and short. Never the body.
 */
export function describeSmtpError(err: unknown): string {
  const e = (err ?? {}) as SmtpError;
  const reply = (e.response ?? e.message ?? String(err))
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[link]')
    .replace(/[^\s<>@]+@[^\s<>@]+/g, '[address]')
    .replace(/\s+/g, ' ')
    .trim();
  const head = [e.code, e.command ? `at ${e.command}` : undefined].filter(Boolean).join(' ');
  return `${head ? `${head}: ` : ''}${reply}`.slice(0, 300);
}

/** A 5xx SMTP reply is permanent (RFC 5321), except at AUTH: wrong credentials are the operator's to fix, then it goes. */
function isPermanent(err: unknown): boolean {
  const e = (err ?? {}) as SmtpError;
  return typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600 && e.code !== 'EAUTH';
}

/**
 * The mail delivery worker (issue 22 §1), modelled on the postback worker: reads mail_outbox (written by Mailer.enqueue
 * in the transaction of the action), sends each 'pending' message over SMTP (SMTP_URL, From MAIL_FROM, the row's
 * Message-ID and headers, the text and the HTML part), and records the outcome. A 4xx reply, a refused connection or a
 * timeout is retried with backoff for 24 h after the message was written, then the message is 'failed' with the SMTP
 * error; a 5xx reply fails it at once. Due rows are claimed with FOR UPDATE SKIP LOCKED and leased; normally only one
 * worker runs per cluster (the leader of the 'mail' lease), which also runs the staff's daily digest.
 * Without SMTP_URL it sends nothing (the messages are 'kept'). Logs carry the outbox id, attempts and the SMTP reply
 * code only: never a body, a link, a token or an address.
 * Created stopped: main.ts starts it; tests call tick(now) and digest(now).
 */
export class MailWorker {
  private transport: Transporter | null = null;
  private lastDigestCheck = 0;
  private readonly poller: LeaderPoller;

  constructor(private readonly deps: MailWorkerDeps) {
    this.poller = new LeaderPoller({
      name: 'mail',
      lease: LEASES.mail,
      key: LEADER_LOCKS.mail,
      databaseUrl: deps.databaseUrl,
      leaseMs: deps.leaseMs,
      retryMs: deps.leaderRetryMs,
      pollMs: deps.pollMs,
      log: deps.log,
      poll: () => this.poll(),
    });
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private transporter(): Transporter {
    if (!this.transport) {
      const timeout = this.deps.timeoutMs ?? 30_000;
      this.transport = nodemailer.createTransport({
        url: this.deps.smtpUrl!,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        logger: false,
      });
    }
    return this.transport;
  }

  /** Claims the due messages (at `now`), sends them, and answers how each ended. Nothing without SMTP_URL. */
  async tick(now: Date = this.now()): Promise<{ sent: number; retried: number; failed: number }> {
    if (!this.deps.smtpUrl) return { sent: 0, retried: 0, failed: 0 };
    const claimed = await this.claim(now, BATCH);
    const outcomes = await Promise.all(claimed.map((m) => this.deliver(m, now)));
    return {
      sent: outcomes.filter((o) => o === 'sent').length,
      retried: outcomes.filter((o) => o === 'retry').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  /** The staff's daily digest (digest.ts) at `now`; answers how many digests were written. */
  digest(now: Date = this.now()): Promise<number> {
    return runReminderDigest({ db: this.deps.db, mail: this.deps.mail, timeZone: this.deps.timeZone }, now);
  }

  private async claim(now: Date, limit: number): Promise<ClaimedMail[]> {
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const { rows } = await sql<{
      id: string | number;
      message_id: string;
      to_address: string;
      subject: string;
      text_body: string;
      html_body: string;
      headers: Record<string, string> | string;
      attempts: number;
      created_at: Date | string;
    }>`
      with due as (
        select id from mail_outbox
        where status = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at, id
        limit ${limit}
        for update skip locked
      )
      update mail_outbox m set next_attempt_at = ${leaseUntil}
      from due
      where m.id = due.id
      returning m.id, m.message_id, m.to_address, m.subject, m.text_body, m.html_body, m.headers, m.attempts,
                m.created_at`.execute(this.deps.db);
    return rows.map((r) => ({
      id: Number(r.id),
      message_id: r.message_id,
      to_address: r.to_address,
      subject: r.subject,
      text_body: r.text_body,
      html_body: r.html_body,
      headers: typeof r.headers === 'string' ? (JSON.parse(r.headers) as Record<string, string>) : r.headers,
      attempts: Number(r.attempts),
      created_at: new Date(r.created_at),
    }));
  }

  /** One attempt; never throws (a failure is recorded on the row). */
  private async deliver(mail: ClaimedMail, now: Date): Promise<MailOutcome> {
    let error: string | null = null;
    let permanent = false;
    let responseCode: number | null = null;
    let code: string | null = null;
    try {
      await this.transporter().sendMail({
        from: this.deps.from,
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
        messageId: mail.message_id,
        headers: mail.headers,
      });
    } catch (err) {
      error = describeSmtpError(err);
      permanent = isPermanent(err);
      const e = (err ?? {}) as SmtpError;
      responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
      code = e.code ?? null;
    }
    const attempts = mail.attempts + 1;
    if (error === null) {
      await this.finish(mail, now, { status: 'sent', attempts, error: null });
      this.deps.log?.info({ mail_id: mail.id, attempts }, 'mail sent');
      return 'sent';
    }
    const deadline = mail.created_at.getTime() + MAIL_RETRY_WINDOW_MS;
    const failed = permanent || now.getTime() >= deadline;
    const next = new Date(Math.min(now.getTime() + mailRetryDelayMs(attempts), deadline));
    this.deps.log?.warn(
      { mail_id: mail.id, attempts, smtp_code: responseCode, error_code: code, final: failed },
      'mail delivery failed',
    );
    await this.finish(mail, now, { status: failed ? 'failed' : 'pending', attempts, error, next });
    return failed ? 'failed' : 'retry';
  }

  private async finish(
    mail: ClaimedMail,
    now: Date,
    outcome: { status: 'sent' | 'pending' | 'failed'; attempts: number; error: string | null; next?: Date },
  ): Promise<void> {
    await this.deps.db
      .updateTable('mail_outbox')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        last_attempt_at: now,
        last_error: outcome.error,
        ...(outcome.status === 'sent' ? { sent_at: now } : {}),
        // next_attempt_at is Generated<Timestamp> in the table types, which Kysely does not unwrap for updates.
        ...(outcome.next ? { next_attempt_at: outcome.next as never } : {}),
      })
      .where('id', '=', mail.id)
      .where('status', '=', 'pending')
      .execute();
  }

  /** One poll: the due messages, and (once a minute) the digest. */
  private async poll(): Promise<void> {
    const now = this.now();
    if (now.getTime() - this.lastDigestCheck >= DIGEST_EVERY_MS) {
      this.lastDigestCheck = now.getTime();
      await this.digest(now).catch((err: unknown) => this.deps.log?.warn({ err }, 'mail digest failed'));
    }
    await this.tick(now);
  }

  /** Polls (as the cluster's leader when there is a database URL) until stop(). */
  async start(): Promise<void> {
    await this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
    this.transport?.close();
    this.transport = null;
  }
}
