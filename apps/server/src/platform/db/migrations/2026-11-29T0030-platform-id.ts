import { sql, type Kysely } from 'kysely';

/**
 * Issue 27 item 11 (client-platform.md §2.4, §3: User.platform_id): each client user gets a short account number,
 * shown on the trading screen ('ID: 10000042'), the statement and the CRM instead of a truncated UUID. Eight digits
 * from a sequence, given on insert to every client user (a trigger, so every path that creates one — registration, a
 * login made on the card, the seed — gets it) and to the client users that exist now, oldest first. Staff have none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence users_platform_id_seq start 10000001 minvalue 10000001 maxvalue 99999999 no cycle`.execute(
    db,
  );
  await sql`alter table users add column platform_id text unique`.execute(db);
  await sql`update users u set platform_id = s.pid
    from (select id, nextval('users_platform_id_seq')::text as pid
          from (select id from users where role = 'client' order by created_at, id) ordered) s
    where u.id = s.id`.execute(db);
  await sql`create function users_platform_id() returns trigger language plpgsql as $$
    begin
      if new.role = 'client' and new.platform_id is null then
        new.platform_id := nextval('users_platform_id_seq')::text;
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger users_platform_id before insert or update of role on users
    for each row execute function users_platform_id()`.execute(db);
}
