import { sql, type Kysely } from 'kysely';

/**
 * The tamper-evident audit log (issue 13 item 5). Every audit row gets `seq` (its place in the chain, 1, 2, 3, …),
 * `prev_hash` (the hash of row seq − 1; '' for the first) and `hash` = sha256 of its canonical content
 * (`audit_log_canonical`), which includes seq and prev_hash, so editing, removing or inserting a row breaks the chain at
 * that row.
 *
 * The stamping runs in a DEFERRABLE INITIALLY DEFERRED constraint trigger: at commit time, after all the transaction's
 * work, it takes a transaction advisory lock (AUDIT_CHAIN_LOCK), reads the chain head and stamps the row. So the chain is
 * serialised (one committer at a time extends it; never a fork), and a long transaction (an import) holds the lock only
 * for the moment of its commit. All the app's transactions are READ COMMITTED, so the head read after the lock sees
 * the previous committer's stamp; `seq` is unique besides, so a fork could never be stored.
 *
 * The append-only trigger of migration 0001 now lets exactly one update through: seq/prev_hash/hash from NULL to
 * values, every other column unchanged. Rows existing at migration time are chained in id order.
 */
export const AUDIT_CHAIN_LOCK = 7_245_113_018;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table audit_log add column seq bigint, add column prev_hash text, add column hash text`.execute(db);
  await sql`create unique index audit_log_seq on audit_log (seq)`.execute(db);

  // The canonical content: fixed column order, timestamps in UTC with microseconds, jsonb in its normalised text form.
  await sql`
    create function audit_log_canonical(r audit_log) returns text language sql immutable as $$
      select json_build_array(
        r.seq::text, coalesce(r.prev_hash, ''), r.id::text,
        to_char(r.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        r.actor_id::text, r.actor_name, r.actor_role, r.action, r.entity_type, r.entity_id,
        r.before::text, r.after::text, r.ip
      )::text
    $$`.execute(db);

  await sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
         and old.seq is null and old.prev_hash is null and old.hash is null
         and new.seq is not null and new.prev_hash is not null and new.hash is not null
         and (new.id, new.at, new.actor_id, new.actor_name, new.actor_role, new.action, new.entity_type, new.entity_id,
              new.before::text, new.after::text, new.ip)
             is not distinct from
             (old.id, old.at, old.actor_id, old.actor_name, old.actor_role, old.action, old.entity_type, old.entity_id,
              old.before::text, old.after::text, old.ip)
      then
        return new;
      end if;
      raise exception 'audit_log is append-only';
    end $$`.execute(db);

  // Stamps one row onto the chain head. Called by the deferred trigger (at commit) and by this migration.
  await sql`
    create function audit_log_stamp(row_id bigint) returns void language plpgsql as $$
    declare
      r audit_log;
      head_seq bigint;
      head_hash text;
    begin
      perform pg_advisory_xact_lock(${sql.raw(String(AUDIT_CHAIN_LOCK))});
      select * into r from audit_log where id = row_id;
      if not found or r.hash is not null then
        return;
      end if;
      select seq, hash into head_seq, head_hash from audit_log where seq is not null order by seq desc limit 1;
      r.seq := coalesce(head_seq, 0) + 1;
      r.prev_hash := coalesce(head_hash, '');
      r.hash := encode(sha256(convert_to(audit_log_canonical(r), 'UTF8')), 'hex');
      update audit_log set seq = r.seq, prev_hash = r.prev_hash, hash = r.hash where id = row_id;
    end $$`.execute(db);

  await sql`
    create function audit_log_chain() returns trigger language plpgsql as $$
    begin
      perform audit_log_stamp(new.id);
      return null;
    end $$`.execute(db);

  // Existing rows, in id order, before the trigger exists (so nothing is stamped twice).
  await sql`
    do $$
    declare
      rid bigint;
    begin
      for rid in select id from audit_log order by id loop
        perform audit_log_stamp(rid);
      end loop;
    end $$`.execute(db);

  await sql`
    create constraint trigger audit_log_chain after insert on audit_log
    deferrable initially deferred for each row execute function audit_log_chain()`.execute(db);
}
