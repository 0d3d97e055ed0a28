import { sql, type Kysely } from 'kysely';

/**
 * The money and trading engine (decisions.md D1–D3): trading accounts, the ledger, idempotency keys, the server's
 * price ticks and 1-minute candles, and trades. Money is integer cents (bigint); prices are exact numerics.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trading_accounts')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().unique().references('clients.id'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().unique().references('users.id'))
    .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('trading_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('max_trade_amount_cents', 'bigint', (c) => c.notNull().defaultTo(100000))
    .addColumn('payout_percentage', 'integer', (c) => c.notNull().defaultTo(85))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_activity', 'timestamptz')
    // D3: no balance ever goes below 0 — enforced by the database as well as by the ledger service.
    .addCheckConstraint('trading_accounts_balance_check', sql`balance_cents >= 0`)
    .addCheckConstraint('trading_accounts_status_check', sql`status in ('active', 'blocked', 'demo')`)
    .addCheckConstraint('trading_accounts_max_trade_check', sql`max_trade_amount_cents >= 0`)
    .addCheckConstraint('trading_accounts_payout_check', sql`payout_percentage between 1 and 100`)
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('balance_after_cents', 'bigint', (c) => c.notNull())
    // What caused the entry ('trade:42:stake', 'trade:42:settle', 'adjustment:<uuid>'): unique, so a retried or
    // concurrent cause can post at most once.
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('actor_id', 'uuid', (c) => c.references('users.id'))
    .addColumn('reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'ledger_entries_kind_check',
      sql`kind in ('deposit', 'deposit_correction', 'withdrawal_hold', 'withdrawal_release', 'trade_stake', 'trade_payout', 'trade_refund', 'adjustment')`,
    )
    .addCheckConstraint('ledger_entries_balance_after_check', sql`balance_after_cents >= 0`)
    .execute();
  await sql`create index ledger_entries_account on ledger_entries (account_id, id desc)`.execute(db);
  // The ledger is history: the database refuses to change or remove an entry (a mistake is corrected by a new one).
  await sql`
    create function ledger_entries_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger_entries is append-only';
    end $$`.execute(db);
  await sql`
    create trigger ledger_entries_no_change before update or delete on ledger_entries
    for each row execute function ledger_entries_append_only()`.execute(db);

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['user_id', 'route', 'key'])
    .execute();
  await sql`create index idempotency_keys_created on idempotency_keys (created_at)`.execute(db);

  await db.schema
    .createTable('price_ticks')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('price', 'numeric', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('price_ticks_price_check', sql`price > 0`)
    .execute();
  // Settlement's question — the last price of a symbol at or before a moment — is one descent of this index.
  await sql`create index price_ticks_symbol_at on price_ticks (symbol, at desc, id desc)`.execute(db);

  await db.schema
    .createTable('candles_1m')
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    .addColumn('open', 'numeric', (c) => c.notNull())
    .addColumn('high', 'numeric', (c) => c.notNull())
    .addColumn('low', 'numeric', (c) => c.notNull())
    .addColumn('close', 'numeric', (c) => c.notNull())
    .addPrimaryKeyConstraint('candles_1m_pkey', ['symbol', 'minute'])
    .execute();

  await db.schema
    .createTable('trades')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer', (c) => c.notNull())
    .addColumn('payout_percentage', 'integer', (c) => c.notNull())
    .addColumn('strike_price', 'numeric', (c) => c.notNull())
    .addColumn('strike_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('close_price', 'numeric')
    .addColumn('close_at', 'timestamptz')
    .addColumn('profit_cents', 'bigint')
    .addColumn('settled_at', 'timestamptz')
    .addColumn('void_reason', 'text')
    .addColumn('voided_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('trades_direction_check', sql`direction in ('call', 'put')`)
    .addCheckConstraint('trades_status_check', sql`status in ('active', 'won', 'lost', 'tie', 'voided')`)
    .addCheckConstraint('trades_amount_check', sql`amount_cents > 0`)
    .addCheckConstraint('trades_duration_check', sql`duration_seconds > 0`)
    .addCheckConstraint('trades_payout_check', sql`payout_percentage between 1 and 100`)
    // A result is always backed by the price that decided it; a closed trade always says when it closed.
    .addCheckConstraint(
      'trades_result_check',
      sql`(status = 'active' and settled_at is null)
        or (status in ('won', 'lost', 'tie') and settled_at is not null and close_price is not null and close_at is not null and profit_cents is not null)
        or (status = 'voided' and settled_at is not null and void_reason is not null)`,
    )
    .execute();
  // The settlement worker's queue: active trades by expiry (a partial index stays as small as the open book).
  await sql`create index trades_due on trades (expires_at, id) where status = 'active'`.execute(db);
  await sql`create index trades_account on trades (account_id, created_at desc, id desc)`.execute(db);

  // Client users registered before this migration get their trading account now, with balance 0.
  await sql`
    insert into trading_accounts (client_id, user_id)
    select c.id, c.user_id from clients c join users u on u.id = c.user_id
    where u.role = 'client' and u.deleted_at is null
    on conflict do nothing`.execute(db);
}
