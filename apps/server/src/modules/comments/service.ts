import type { Comment, CommentCreate, CommentsResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { HttpError } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/db/types.js';

/**
 * Comments on a client's card (back-office.md §2.6, §3): pinned first, newest first; the author's name kept as it was
 * written. clients.last_comment_date moves in the same transaction as the comment. Only through the D5 scope.
 */

type Row = {
  id: string | number;
  client_id: string | number;
  text: string;
  is_pinned: boolean;
  user_id: string | null;
  user_name: string;
  created_at: Date | string;
};

function toComment(r: Row): Comment {
  return {
    id: Number(r.id),
    client_id: Number(r.client_id),
    text: r.text,
    is_pinned: r.is_pinned,
    user_id: r.user_id,
    user_name: r.user_name,
    created_at: new Date(r.created_at).toISOString(),
  };
}

async function clientInScope(db: Db | Trx, actor: Actor, clientId: number, lock = false): Promise<void> {
  let q = scopeClients(db.selectFrom('clients'), actor).select('clients.id').where('clients.id', '=', clientId);
  if (lock) q = q.forUpdate();
  if (!(await q.executeTakeFirst())) throw new HttpError(404, 'client_not_found');
}

export async function listComments(
  db: Db,
  actor: Actor,
  clientId: number,
  page: { page: number; per_page: number },
): Promise<CommentsResponse> {
  await clientInScope(db, actor, clientId);
  const base = db.selectFrom('comments').where('client_id', '=', clientId);
  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('is_pinned', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.per_page)
      .offset((page.page - 1) * page.per_page)
      .execute(),
  ]);
  return { items: rows.map(toComment), total: Number(total) };
}

export async function addComment(db: Db, actor: Actor, clientId: number, input: CommentCreate): Promise<Comment> {
  if (input.client_id !== undefined && input.client_id !== clientId) throw new HttpError(400, 'client_id_mismatch');
  return db.transaction().execute(async (trx) => {
    await clientInScope(trx, actor, clientId, true);
    const row = await trx
      .insertInto('comments')
      .values({
        client_id: clientId,
        text: input.text,
        is_pinned: input.is_pinned ?? false,
        user_id: actor.id,
        user_name: actor.name,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('clients')
      .set({ last_comment_date: row.created_at, updated_at: sql`now()` })
      .where('id', '=', clientId)
      .execute();
    await writeAudit(trx, actor, {
      action: 'comment.create',
      entityType: 'comment',
      entityId: Number(row.id),
      after: { client_id: clientId, is_pinned: row.is_pinned, length: row.text.length },
    });
    return toComment(row);
  });
}

/** PUT /api/comments/:id {is_pinned}: pin or unpin a comment of a client in scope. */
export async function pinComment(db: Db, actor: Actor, id: number, isPinned: boolean): Promise<Comment> {
  return db.transaction().execute(async (trx) => {
    const found = await scopeClients(
      trx.selectFrom('comments as c').innerJoin('clients', 'clients.id', 'c.client_id'),
      actor,
    )
      .select(['c.id', 'c.is_pinned', 'c.client_id'])
      .where('c.id', '=', id)
      .executeTakeFirst();
    if (!found) throw new HttpError(404, 'comment_not_found');
    const row = await trx
      .updateTable('comments')
      .set({ is_pinned: isPinned })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'comment.pin',
      entityType: 'comment',
      entityId: id,
      before: { client_id: Number(found.client_id), is_pinned: found.is_pinned },
      after: { client_id: Number(found.client_id), is_pinned: isPinned },
    });
    return toComment(row);
  });
}
