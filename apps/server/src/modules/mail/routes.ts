import {
  errorSchema,
  mailOutboxDetailSchema,
  mailOutboxIdParam,
  mailOutboxQuerySchema,
  mailOutboxResponseSchema,
  mailUnsubscribeQuerySchema,
  okSchema,
  type MailOutboxDetail,
  type MailOutboxItem,
  type MailOutboxQuery,
  type MailOutboxResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../platform/db/index.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/errors.js';
import { parseOptionalBody } from '../../platform/http/optional-body.js';
import { hashLinkToken } from './mailer.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const ITEM_COLUMNS = [
  'id',
  'to_address',
  'subject',
  'template',
  'category',
  'language',
  'status',
  'attempts',
  'last_error',
  'created_at',
  'sent_at',
] as const;

interface ItemRow {
  id: string | number;
  to_address: string;
  subject: string;
  template: string;
  category: MailOutboxItem['category'];
  language: MailOutboxItem['language'];
  status: MailOutboxItem['status'];
  attempts: number;
  last_error: string | null;
  created_at: Date | string;
  sent_at: Date | string | null;
}

function toItem(r: ItemRow): MailOutboxItem {
  return {
    id: Number(r.id),
    to: r.to_address,
    subject: r.subject,
    template: r.template,
    category: r.category,
    language: r.language,
    status: r.status,
    attempts: Number(r.attempts),
    last_error: r.last_error,
    created_at: iso(r.created_at)!,
    sent_at: iso(r.sent_at),
  };
}

export async function listOutbox(db: Db, query: MailOutboxQuery): Promise<MailOutboxResponse> {
  let q = db.selectFrom('mail_outbox');
  if (query.status) q = q.where('status', '=', query.status);
  if (query.search) {
    const like = `%${escapeLike(query.search)}%`;
    q = q.where((eb) => eb.or([eb('to_address', 'ilike', like), eb('subject', 'ilike', like)]));
  }
  const [rows, count] = await Promise.all([
    q
      .select(ITEM_COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map((r) => toItem(r as unknown as ItemRow)), total: Number(count.n) };
}

export async function outboxMessage(db: Db, id: number): Promise<MailOutboxDetail> {
  const row = await db
    .selectFrom('mail_outbox')
    .select([...ITEM_COLUMNS, 'text_body', 'html_body', 'headers'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'mail_not_found');
  const headers = typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : row.headers;
  return { ...toItem(row as unknown as ItemRow), text_body: row.text_body, html_body: row.html_body, headers };
}

/**
 * The unsubscribe link (issue 22 §1): its token (stored as a hash, purpose 'unsubscribe', reusable until it expires)
 * turns the user's non-security mail off. Answers false for an unknown, revoked or expired token.
 */
export async function unsubscribe(db: Db, token: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('auth_tokens')
      .select('user_id')
      .where('token_hash', '=', hashLinkToken(token))
      .where('purpose', '=', 'unsubscribe')
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    if (!found) return false;
    await trx.updateTable('users').set({ mail_opt_out: true }).where('id', '=', found.user_id).execute();
    return true;
  });
}

/** What the one-click POST may carry: nothing, RFC 8058's form field, or a JSON object. */
const unsubscribeBody = z.looseObject({ 'List-Unsubscribe': z.string().max(100).optional() });

/**
 * Issue 22 §1: the outgoing mail page's API (superadmin: mail.outbox), and the public one-click unsubscribe.
 * The unsubscribe route also reads an HTML form body (application/x-www-form-urlencoded, RFC 8058's
 * `List-Unsubscribe=One-Click`, which mail providers POST to the List-Unsubscribe URL) and ignores a multipart one:
 * both parsers are this plugin's only, so no other route accepts such bodies.
 */
export const mailRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string' }, (_request, _body, done) => done(null, {}));

  app.get(
    '/api/mail/outbox',
    {
      schema: {
        tags: ['mail'],
        summary: 'Every message written to the mail outbox, newest first, with its delivery status',
        querystring: mailOutboxQuerySchema,
        response: { 200: mailOutboxResponseSchema, 400: errorSchema, 401: errorSchema, 403: errorSchema },
      },
    },
    async (request) => listOutbox(deps.db, request.query),
  );

  app.get(
    '/api/mail/outbox/:id',
    {
      schema: {
        tags: ['mail'],
        summary: 'One message of the outbox as rendered: its text and HTML parts and its extra headers',
        params: mailOutboxIdParam,
        response: {
          200: mailOutboxDetailSchema,
          400: errorSchema,
          401: errorSchema,
          403: errorSchema,
          404: errorSchema,
        },
      },
    },
    async (request) => outboxMessage(deps.db, request.params.id),
  );

  app.post(
    '/api/mail/unsubscribe',
    {
      schema: {
        tags: ['mail'],
        summary:
          "Turns the link's user's non-security mail off (the List-Unsubscribe one-click POST of RFC 8058, or the /unsubscribe page); no body, a form body or JSON",
        querystring: mailUnsubscribeQuerySchema,
        response: { 200: okSchema, 400: errorSchema },
      },
    },
    async (request) => {
      parseOptionalBody(unsubscribeBody, request.body);
      if (!(await unsubscribe(deps.db, request.query.token))) throw new HttpError(400, 'unsubscribe_link_invalid');
      return { ok: true as const };
    },
  );
};
