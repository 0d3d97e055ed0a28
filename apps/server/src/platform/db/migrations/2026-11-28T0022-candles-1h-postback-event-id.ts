import { sql, type Kysely } from 'kysely';

/**
 * Issue 20 §6 and §11.
 *
 * `candles_1h`: hourly candles kept beside `candles_1m` by the tick flush (prices/candles.ts storeHourCandles), so
 * the public candles call reads at most one row per hourly candle instead of aggregating sixty minute rows each. Back-
 * filled here from the stored minute candles; an hour starts at a whole UTC hour.
 *
 * `postback_events.event_id`: the stable id of a postback event, sent in every retry of it (header `X-Event-Id` and
 * body field `event_id`) so a partner can drop a delivery it already has. Every existing event gets its own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('candles_1h')
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('hour', 'timestamptz', (c) => c.notNull())
    .addColumn('open', 'numeric', (c) => c.notNull())
    .addColumn('high', 'numeric', (c) => c.notNull())
    .addColumn('low', 'numeric', (c) => c.notNull())
    .addColumn('close', 'numeric', (c) => c.notNull())
    .addPrimaryKeyConstraint('candles_1h_pkey', ['symbol', 'hour'])
    .execute();
  await backfillCandles1h(db);

  await sql`alter table postback_events add column event_id uuid not null default gen_random_uuid()`.execute(db);
}

/** Every hour of the stored minute candles into candles_1h (exported for the test that checks it). */
export async function backfillCandles1h(db: Kysely<any>): Promise<void> {
  await sql`
    insert into candles_1h (symbol, hour, open, high, low, close)
    select symbol, date_bin('1 hour'::interval, minute, timestamptz '2000-01-01 00:00:00+00'),
           (array_agg(open order by minute))[1], max(high), min(low), (array_agg(close order by minute desc))[1]
    from candles_1m
    group by 1, 2`.execute(db);
}
