import { sql, type Kysely } from 'kysely';

/**
 * Revocations announced by the database itself (issue 12, item 1; docs/decisions.md "Sessions announced by the
 * database"). Any change to a session or a user that could end a session or change what it may do — a session
 * revoked, deleted or shortened; a user's row changed (role, password, deletion, name, …) or deleted — sends
 * NOTIFY brokerage_events '{"type":"auth.changed"}' when its transaction commits, whoever wrote it: a route, the
 * command line, a hand edit. Every server process listens on that channel (platform/bus PgBus) and drops its session
 * cache, so the cache may keep a session longer than 1 s while its listening connection is known to be alive.
 *
 * Not announced: a session's sliding idle expiry (last_seen_at and expires_at moved forward together, every 30 s of
 * use) and a sign-in's bookkeeping (last_login_at, updated_at), which end nothing. New rows end nothing either.
 * Notifications with the same payload in one transaction reach listeners once (PostgreSQL folds them), so revoking
 * many sessions at once is one event.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function announce_auth_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        if tg_table_name = 'sessions' then
          if (to_jsonb(new) - 'last_seen_at' - 'expires_at') = (to_jsonb(old) - 'last_seen_at' - 'expires_at')
             and new.expires_at >= old.expires_at then
            return null;
          end if;
        elsif (to_jsonb(new) - 'last_login_at' - 'updated_at') = (to_jsonb(old) - 'last_login_at' - 'updated_at') then
          return null;
        end if;
      end if;
      perform pg_notify('brokerage_events', '{"type":"auth.changed"}');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger sessions_announce_auth_change after update or delete on sessions
    for each row execute function announce_auth_change()`.execute(db);
  await sql`
    create trigger users_announce_auth_change after update or delete on users
    for each row execute function announce_auth_change()`.execute(db);
}
