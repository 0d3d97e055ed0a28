import { sql, type Kysely } from 'kysely';

/**
 * Funds and messages: clients' card withdrawal requests (their amount held in the ledger, D3; the card number
 * encrypted, D7), the deposit methods shown on top-up (with the three built-in ones of client-platform.md §8), and
 * messages from staff to a client.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('withdraw_requests')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('trading_accounts.id'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('card_holder', 'text', (c) => c.notNull())
    // D7: the last 4 digits in clear, the whole number only as AES-256-GCM ciphertext (iv, tag, base64).
    .addColumn('card_last4', sql`char(4)`, (c) => c.notNull())
    .addColumn('card_number_enc', 'text', (c) => c.notNull())
    .addColumn('card_expiry', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('processed_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('processed_at', 'timestamptz')
    .addColumn('reject_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('withdraw_requests_amount_check', sql`amount_cents > 0`)
    .addCheckConstraint('withdraw_requests_last4_check', sql`card_last4 ~ '^[0-9]{4}$'`)
    .addCheckConstraint('withdraw_requests_expiry_check', sql`card_expiry ~ '^(0[1-9]|1[0-2])/[0-9]{2}$'`)
    // Never a clear card number in the encrypted column (a ciphertext is 'v1:' + base64).
    .addCheckConstraint('withdraw_requests_enc_check', sql`card_number_enc ~ '^v[0-9]+:[A-Za-z0-9+/=]+$'`)
    .addCheckConstraint('withdraw_requests_status_check', sql`status in ('pending', 'approved', 'rejected')`)
    // A processed request always says who processed it and when; a pending one has neither.
    .addCheckConstraint(
      'withdraw_requests_processed_check',
      sql`(status = 'pending' and processed_at is null and processed_by is null and reject_reason is null)
        or (status <> 'pending' and processed_at is not null)`,
    )
    .execute();
  await sql`create index withdraw_requests_status_created on withdraw_requests (status, created_at desc)`.execute(db);
  await sql`create index withdraw_requests_client on withdraw_requests (client_id)`.execute(db);
  await sql`create index withdraw_requests_user on withdraw_requests (user_id, created_at desc, id desc)`.execute(db);
  await sql`create index withdraw_requests_created on withdraw_requests (created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('deposit_methods')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('details', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('sort', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'uuid', (c) => c.references('users.id'))
    .addCheckConstraint('deposit_methods_type_check', sql`type in ('visa_mastercard', 'bank_card', 'crypto', 'other')`)
    .addCheckConstraint('deposit_methods_title_check', sql`char_length(title) between 1 and 120`)
    .addCheckConstraint('deposit_methods_description_check', sql`char_length(description) <= 500`)
    .addCheckConstraint('deposit_methods_details_check', sql`char_length(details) <= 2000`)
    .execute();
  // client-platform.md §8: the three built-in methods, each telling the client to contact support for the details.
  await db
    .insertInto('deposit_methods')
    .values([
      {
        type: 'visa_mastercard',
        title: 'VISA/MasterCard',
        description: 'Банковские карты Visa, MasterCard',
        details: 'Для получения реквизитов для оплаты обратитесь в службу поддержки.',
        enabled: true,
        sort: 1,
      },
      {
        type: 'bank_card',
        title: 'Карта',
        description: 'Дебетовые и кредитные карты',
        details: 'Для получения реквизитов для оплаты обратитесь в службу поддержки.',
        enabled: true,
        sort: 2,
      },
      {
        type: 'crypto',
        title: 'Криптовалюта',
        description: 'Bitcoin, Ethereum, USDT',
        details: 'Для получения адреса кошелька обратитесь в службу поддержки.',
        enabled: true,
        sort: 3,
      },
    ])
    .execute();

  await db.schema
    .createTable('client_messages')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('clients.id'))
    // The client's platform user, who reads the message.
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('content', 'text', (c) => c.notNull())
    // The staff member who wrote it; null for a message of the system (shown as 'Support').
    .addColumn('created_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('read_at', 'timestamptz')
    .addCheckConstraint('client_messages_content_check', sql`char_length(content) between 1 and 2000`)
    .execute();
  await sql`create index client_messages_user on client_messages (user_id, created_at desc, id desc)`.execute(db);
  await sql`create index client_messages_client on client_messages (client_id, created_at desc, id desc)`.execute(db);
}
