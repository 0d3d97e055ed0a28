import { sql, type Kysely } from 'kysely';

/**
 * Issue 30, decisions.md D27: the price log, an append-only Merkle log (RFC 6962) of every stored tick.
 *
 * `price_ticks.log_index` — the tick's leaf index (0-based, storage order) — and `symbol_seq` — its symbol's tick count
 * from 1 — are given by the statement that stores the tick (modules/prices/feed-store.ts), which also inserts the
 * leaf's hash into `price_log_nodes` (level 0) and raises `price_log_state.size`.
 *
 * `price_log_nodes (level, idx, hash)`: the hash of every complete perfect subtree: level 0 the leaf hashes, level L
 * the subtree of leaves [idx·2^L, (idx+1)·2^L). Levels ≥ 1 are written by the head publisher up to
 * `price_log_state.hashed_size`. Never pruned: a pruned tick's leaf stays represented by these hashes.
 *
 * `price_log_symbols`: each symbol's last `symbol_seq`.
 *
 * `price_log_heads`: the signed tree heads (tree_size, time_ms, root, Ed25519 signature over RFC 6962's tree head
 * input), with the id of the key that signed.
 *
 * `price_log_keys`: every public key that signed a head (key_id → the 32 raw bytes), so a proof of an old trade still
 * names the key its head was signed with after the key was replaced.
 *
 * `trades.opened_log_size`: the log's size when the trade opened (its strike is among those leaves); null for trades
 * opened before the log existed.
 *
 * The ticks already stored become the log's first leaves (in id order).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table price_ticks add column log_index bigint, add column symbol_seq bigint`.execute(db);
  await sql`alter table trades add column opened_log_size bigint`.execute(db);

  await db.schema
    .createTable('price_log_nodes')
    .addColumn('level', 'smallint', (c) => c.notNull())
    .addColumn('idx', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('price_log_nodes_pkey', ['level', 'idx'])
    .execute();
  await db.schema
    .createTable('price_log_state')
    .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('hashed_size', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('price_log_symbols')
    .addColumn('symbol', 'text', (c) => c.primaryKey())
    .addColumn('last_seq', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('price_log_heads')
    .addColumn('tree_size', 'bigint', (c) => c.primaryKey())
    .addColumn('time_ms', 'bigint', (c) => c.notNull())
    .addColumn('root', 'bytea', (c) => c.notNull())
    .addColumn('signature', 'bytea', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('price_log_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The ticks already stored: leaves in id order, each symbol counted from 1.
  await sql`
    update price_ticks p set log_index = n.log_index, symbol_seq = n.symbol_seq
    from (select id, row_number() over (order by id) - 1 as log_index,
                 row_number() over (partition by symbol order by id) as symbol_seq
          from price_ticks) n
    where p.id = n.id`.execute(db);
  await sql`
    insert into price_log_nodes (level, idx, hash)
    select 0, log_index, sha256(decode('00', 'hex') || convert_to(
             'v1' || chr(10) || symbol || chr(10) || symbol_seq || chr(10) ||
             floor(extract(epoch from at) * 1000)::bigint || chr(10) || price::text, 'UTF8'))
    from price_ticks`.execute(db);
  await sql`insert into price_log_state (id, size) values (1, (select count(*) from price_ticks))`.execute(db);
  await sql`
    insert into price_log_symbols (symbol, last_seq)
    select symbol, max(symbol_seq) from price_ticks group by symbol`.execute(db);
  await sql`create unique index price_ticks_log_index on price_ticks (log_index)`.execute(db);
}
