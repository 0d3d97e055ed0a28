import { sql, type Kysely } from 'kysely';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * Lead supply (back-office.md §2.11, §2.13, §3, §7; decisions.md D13, D17):
 * - `clients.phone_e164`: the phone as E.164 for duplicate checks (null where it cannot be parsed; such a lead never
 *   matches by phone), backfilled here with the same library the services use; `phone` keeps what was typed.
 * - the lead-provider fields of §3 on `clients` (campaign_name is `campaign`), `affiliate_id` now a bigint reference.
 * - `affiliates` (soft delete), `affiliate_tokens` (only the SHA-256 of the token, its first 8 and last 4 characters).
 * - `external_idempotency_keys`: Idempotency-Key of the external API, kept per token.
 * - `postback_events`: the outbox of affiliate postbacks, written in the transaction of the event.
 * - `lead_imports`: one row per file import with its rejected rows as CSV (downloadable for 24 h).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table clients add column phone_e164 text`.execute(db);
  for (const column of ['ad_name', 'utm_source', 'utm_campaign', 'utm_medium', 'keyword', 'region', 'device']) {
    await sql`alter table clients add column ${sql.ref(column)} text`.execute(db);
  }
  await backfillPhones(db);
  await sql`create index clients_phone_e164 on clients (phone_e164) where phone_e164 is not null`.execute(db);

  await db.schema
    .createTable('affiliates')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('contact_person', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('contact_email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('webhook_url', 'text')
    // D17: the postback signing secret, encrypted with the card vault's key (D7).
    .addColumn('signing_secret_enc', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .addCheckConstraint('affiliates_status_check', sql`status in ('active', 'inactive', 'paused')`)
    .addCheckConstraint('affiliates_name_check', sql`char_length(name) between 1 and 200`)
    .execute();

  // Leads posted before this migration carry no affiliate (the column was never written); make it a real reference.
  await sql`update clients set affiliate_id = null where affiliate_id is not null`.execute(db);
  await sql`alter table clients alter column affiliate_id type bigint`.execute(db);
  await sql`alter table clients add constraint clients_affiliate_fk foreign key (affiliate_id) references affiliates (id)`.execute(
    db,
  );
  await sql`create index clients_affiliate on clients (affiliate_id, id desc) where affiliate_id is not null`.execute(
    db,
  );

  await db.schema
    .createTable('affiliate_tokens')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('affiliate_id', 'bigint', (c) => c.notNull().references('affiliates.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', (c) => c.notNull())
    .addColumn('token_suffix', 'text', (c) => c.notNull())
    .addColumn('ip_whitelist', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await sql`create index affiliate_tokens_affiliate on affiliate_tokens (affiliate_id)`.execute(db);

  await db.schema
    .createTable('external_idempotency_keys')
    .addColumn('token_id', 'bigint', (c) => c.notNull().references('affiliate_tokens.id'))
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('external_idempotency_keys_pkey', ['token_id', 'route', 'key'])
    .execute();
  await sql`create index external_idempotency_keys_created on external_idempotency_keys (created_at)`.execute(db);

  await db.schema
    .createTable('postback_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('affiliate_id', 'bigint', (c) => c.notNull().references('affiliates.id'))
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'postback_events_event_check',
      sql`event in ('LEAD', 'REGISTRATION', 'PURCHASE', 'ADD_TO_CART', 'STATUS')`,
    )
    .addCheckConstraint('postback_events_status_check', sql`status in ('pending', 'delivered', 'failed')`)
    .execute();
  await sql`create index postback_events_due on postback_events (next_attempt_at, id) where status = 'pending'`.execute(
    db,
  );
  await sql`create index postback_events_affiliate on postback_events (affiliate_id, id desc)`.execute(db);

  await db.schema
    .createTable('lead_imports')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('total_processed', 'integer', (c) => c.notNull())
    .addColumn('clients_created', 'integer', (c) => c.notNull())
    .addColumn('duplicates_found', 'integer', (c) => c.notNull())
    .addColumn('skipped_incomplete', 'integer', (c) => c.notNull())
    .addColumn('rejected_csv', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index lead_imports_created on lead_imports (created_at)`.execute(db);
}

/** E.164 of every stored phone, in batches by id (default region KZ, as DEFAULT_PHONE_REGION's default). */
async function backfillPhones(db: Kysely<any>): Promise<void> {
  const region = ((process.env.DEFAULT_PHONE_REGION ?? 'KZ').trim().toUpperCase() || 'KZ') as CountryCode;
  let lastId = 0;
  for (;;) {
    const rows = (
      await sql<{ id: string | number; phone: string }>`
      select id, phone from clients where id > ${lastId} and phone <> '' order by id limit 5000`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    const ids: number[] = [];
    const phones: string[] = [];
    for (const row of rows) {
      const parsed = parsePhoneNumberFromString(row.phone.trim().slice(0, 40), { defaultCountry: region });
      if (parsed?.isPossible()) {
        ids.push(Number(row.id));
        phones.push(parsed.number);
      }
    }
    if (ids.length > 0) {
      await sql`update clients c set phone_e164 = v.phone
        from unnest(${ids}::bigint[], ${phones}::text[]) as v(id, phone) where c.id = v.id`.execute(db);
    }
    lastId = Number(rows[rows.length - 1]!.id);
  }
}
