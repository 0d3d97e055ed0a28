import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../platform/db/index.js';
import type { MailLanguage, Trx } from '../../platform/db/types.js';
import { DEFAULT_SITE_CONTENT_FILE, SiteContentStore } from '../site-content/service.js';
import { renderMail, TEMPLATE_CATEGORY, type TemplateData, type TemplateName } from './templates.js';

export interface MailInput<T extends TemplateName> {
  /** The recipient's address as stored. */
  to: string;
  /** The recipient's user, when there is one (the opt-out and the unsubscribe link are theirs). */
  userId: string | null;
  template: T;
  language: MailLanguage;
  data: TemplateData[T];
}

/** A single-use (or, for unsubscribe, reusable) link token: what goes in the link, and what is stored. */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const UNSUBSCRIBE_DAYS = 365;

/**
 * Issue 22 §1: every message is rendered and written to mail_outbox in the caller's transaction, so it exists exactly
 * when the action that caused it committed. With SMTP_URL it waits as 'pending' for the mail worker (the leader);
 * without, it is 'kept' and listed on /crm/outbox. A user who turned non-security mail off gets only security mail.
 * Nothing here logs a body or a link.
 */
export class Mailer {
  private readonly site: SiteContentStore;

  constructor(
    private readonly config: Config,
    log: FastifyBaseLogger,
  ) {
    this.site = new SiteContentStore(
      config.SITE_CONTENT_FILE ? path.resolve(config.SITE_CONTENT_FILE) : DEFAULT_SITE_CONTENT_FILE,
      log,
    );
  }

  /** True when mail leaves the server (SMTP_URL set); false when it is only kept. */
  get sends(): boolean {
    return this.config.SMTP_URL !== undefined;
  }

  /** An absolute link to a page of the site: PUBLIC_URL + path + query. */
  link(pathname: string, params: Record<string, string> = {}): string {
    const url = new URL(this.config.publicUrl + pathname);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.toString();
  }

  /**
   * Renders and stores one message in the caller's transaction. Answers the outbox id, or null when the recipient
   * turned such mail off (never for security mail).
   */
  async enqueue<T extends TemplateName>(trx: Db | Trx, input: MailInput<T>): Promise<number | null> {
    const category = TEMPLATE_CATEGORY[input.template];
    let unsubscribeLink: string | undefined;
    let unsubscribePost: string | undefined;
    if (category !== 'security' && input.userId) {
      const user = await trx
        .selectFrom('users')
        .select(['mail_opt_out'])
        .where('id', '=', input.userId)
        .executeTakeFirst();
      if (user?.mail_opt_out) return null;
    }
    if (category === 'bulk' && input.userId) {
      const { token, hash } = newLinkToken();
      await trx
        .insertInto('auth_tokens')
        .values({
          token_hash: hash,
          purpose: 'unsubscribe',
          user_id: input.userId,
          email: input.to,
          expires_at: sql`now() + make_interval(days => ${UNSUBSCRIBE_DAYS})` as never,
          used_at: null,
          ip: null,
        })
        .execute();
      unsubscribeLink = this.link('/unsubscribe', { token });
      unsubscribePost = this.link('/api/mail/unsubscribe', { token });
    }
    const content = await this.site.get().catch(() => undefined);
    const rendered = renderMail(input.template, input.language, input.data, {
      brand: content?.brand.name ?? 'Brokerage',
      legal: content?.legal?.risk_disclosure?.[input.language] ?? '',
      publicUrl: this.config.publicUrl,
      ...(unsubscribeLink ? { unsubscribeLink } : {}),
    });
    const headers: Record<string, string> = unsubscribePost
      ? { 'List-Unsubscribe': `<${unsubscribePost}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
      : {};
    const row = await trx
      .insertInto('mail_outbox')
      .values({
        message_id: `<${randomUUID()}@${new URL(this.config.publicUrl).hostname}>`,
        user_id: input.userId,
        to_address: input.to,
        template: input.template,
        category,
        language: input.language,
        subject: rendered.subject,
        text_body: rendered.text,
        html_body: rendered.html,
        headers: JSON.stringify(headers) as never,
        status: this.sends ? 'pending' : 'kept',
        last_attempt_at: null,
        last_error: null,
        sent_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }
}
