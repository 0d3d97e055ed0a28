import { sql } from 'kysely';
import type { Db } from '../db/index.js';

/** Whether a live user (staff or client) already has this e-mail, case-insensitively (one account per e-mail, D8). */
export async function emailTaken(db: Db, email: string, exceptUserId?: string): Promise<boolean> {
  let q = db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('deleted_at', 'is', null);
  if (exceptUserId) q = q.where('id', '!=', exceptUserId);
  return (await q.executeTakeFirst()) !== undefined;
}
