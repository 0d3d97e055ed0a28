import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../src/platform/crypto/vault.js';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { reconcile } from '../src/modules/ledger/service.js';
import { seedDemoData } from '../src/seed/demo.js';
import { createTestApp, dbKinds, freshDatabase, type TestApp } from './helpers.js';
import { balanceCents, expectLedgerConsistent, fund, registerClient, type TestClient } from './trading-helpers.js';

/** Every log line the apps of this file write: the server's own logger settings, into buildApp's `logStream`. */
const logLines: string[] = [];
const logStream = { write: (line: string) => void logLines.push(line) };

const KEY = randomBytes(32).toString('base64');
const TZ = 'Europe/Kyiv';

/** Test card numbers of the card networks (they pass the Luhn check). */
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const VISA_DEBIT = '4000056655665556';
const CARDS = [VISA, MASTERCARD, VISA_DEBIT];

/** An expiry month: the current one in the business time zone, shifted by `months`. */
function expiryIn(months: number): string {
  const { year, month } = monthIn(TZ, new Date());
  const total = year * 12 + (month - 1) + months;
  return `${String((total % 12) + 1).padStart(2, '0')}/${String(Math.floor(total / 12) % 100).padStart(2, '0')}`;
}
const VALID_EXPIRY = expiryIn(24);

function body(overrides: Record<string, unknown> = {}) {
  return { amount: 100, card_number: VISA, card_holder: 'Ivan Petrov', card_expiry: VALID_EXPIRY, ...overrides };
}

describe.each(dbKinds())('withdrawal requests on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };
  let retentionManager: { id: string; token: string };
  let otherManager: { id: string; token: string };
  let alice: TestClient;
  let bob: TestClient;
  /** Every answer of this suite except reveal-card's: none may carry a full card number. */
  const answers: string[] = [];

  const call = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    token: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> => {
    const res = await t.inject({
      method,
      url,
      token,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    if (!url.endsWith('/reveal-card')) answers.push(res.body);
    return res;
  };
  const file = (client: TestClient, payload: unknown, headers: Record<string, string> = {}) =>
    call('POST', '/api/withdraw-requests', client.token, payload, headers);
  const requestRow = (id: number) =>
    t.db.selectFrom('withdraw_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const requestCount = async (accountId: number) =>
    Number(
      (
        await t.db
          .selectFrom('withdraw_requests')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    logLines.length = 0;
    t = await createTestApp(
      kind,
      { CARD_ENCRYPTION_KEY: KEY, LOG_LEVEL: 'debug', LOGIN_RATE_PER_MINUTE: '100000' },
      { logStream },
    );
    superadmin = await t.userWithToken('superadmin');
    retentionManager = await t.userWithToken('retention_manager');
    otherManager = await t.userWithToken('retention_manager');
    alice = await registerClient(t, 'Alice Withdrawer');
    bob = await registerClient(t, 'Bob Saver');
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: retentionManager.id })
      .where('id', '=', alice.clientId)
      .execute();
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: otherManager.id })
      .where('id', '=', bob.clientId)
      .execute();
  });
  afterAll(() => t.close());
  // D3: after every test (most move money), each balance still equals the sum of its ledger entries.
  afterEach(() => expectLedgerConsistent(t));

  it('checks a request in the order of client-platform.md §5, with its texts in Russian and English', async () => {
    const c = await registerClient(t, 'Order Checker');
    await fund(t, c.accountId, 10_000); // $100
    const past = expiryIn(-1);
    // Each case makes every later check fail too, so the answer proves which check comes first.
    const cases: [Record<string, unknown>, number, string, string][] = [
      [
        { amount: 0, card_number: '', card_holder: '', card_expiry: '' },
        400,
        'Сумма должна быть больше 0',
        'The amount must be greater than 0',
      ],
      [
        { amount: -5, card_number: '123', card_holder: ' ', card_expiry: 'xx' },
        400,
        'Сумма должна быть больше 0',
        'The amount must be greater than 0',
      ],
      [
        { amount: 10.005, card_number: '', card_holder: '', card_expiry: '' },
        400,
        'Сумма указывается в долларах, не более 2 знаков после запятой',
        'The amount is in dollars, with at most 2 decimals',
      ],
      [
        { amount: 9.99, card_number: '', card_holder: '', card_expiry: '' },
        400,
        'Минимальная сумма вывода: $10',
        'Minimum withdrawal amount: $10',
      ],
      [
        { amount: 100.01, card_number: '', card_holder: '', card_expiry: '' },
        409,
        'Недостаточно средств на счете. Доступно: $100.00, запрошено: $100.01',
        'Insufficient funds on the account. Available: $100.00, requested: $100.01',
      ],
      [
        { amount: 5000, card_number: VISA, card_holder: 'A', card_expiry: VALID_EXPIRY },
        409,
        'Недостаточно средств на счете. Доступно: $100.00, запрошено: $5,000.00',
        'Insufficient funds on the account. Available: $100.00, requested: $5,000.00',
      ],
      [
        { amount: 10, card_number: '', card_holder: '', card_expiry: '' },
        400,
        'Неверный номер карты',
        'Invalid card number',
      ],
      [
        { amount: 10, card_number: '4111 1111 1111', card_holder: '', card_expiry: '' },
        400,
        'Неверный номер карты',
        'Invalid card number',
      ],
      [
        { amount: 10, card_number: '4111111111111112', card_holder: '', card_expiry: '' },
        400,
        'Неверный номер карты',
        'Invalid card number',
      ],
      [
        { amount: 10, card_number: '4111-1111-1111-1111', card_holder: '', card_expiry: '' },
        400,
        'Неверный номер карты',
        'Invalid card number',
      ],
      [
        { amount: 10, card_number: '41111111111111111111', card_holder: '', card_expiry: '' },
        400,
        'Неверный номер карты',
        'Invalid card number',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: '   ', card_expiry: '' },
        400,
        'Укажите имя держателя карты',
        'Enter the card holder name',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: 'A', card_expiry: '' },
        400,
        'Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12',
        'The card expiry is MM/YY, with a month from 01 to 12',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: 'A', card_expiry: '13/40' },
        400,
        'Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12',
        'The card expiry is MM/YY, with a month from 01 to 12',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: 'A', card_expiry: '1/40' },
        400,
        'Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12',
        'The card expiry is MM/YY, with a month from 01 to 12',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: 'A', card_expiry: '12/2040' },
        400,
        'Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12',
        'The card expiry is MM/YY, with a month from 01 to 12',
      ],
      [
        // Issue 27 item 6: each refusal names its real problem.
        { amount: 10, card_number: VISA, card_holder: 'IVAN 😀', card_expiry: '' },
        400,
        'Имя держателя карты — только буквы, пробел, точка, дефис и апостроф, как на карте',
        'The card holder name takes letters, spaces, dots, hyphens and apostrophes only, as on the card',
      ],
      [
        { amount: 1e20, card_number: '', card_holder: '', card_expiry: '' },
        409,
        'Недостаточно средств на счете. Доступно: $100.00, запрошено: $100,000,000,000,000,000,000.00',
        'Insufficient funds on the account. Available: $100.00, requested: $100,000,000,000,000,000,000.00',
      ],
      [
        { amount: 10, card_number: VISA, card_holder: 'A', card_expiry: past },
        400,
        'Срок действия карты истек',
        'The card has expired',
      ],
    ];
    for (const [payload, status, ru, en] of cases) {
      const res = await file(c, payload);
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(status);
      expect(res.json().detail).toBe(ru);
      const english = await file(c, payload, { 'accept-language': 'en-US,en;q=0.9' });
      expect(english.statusCode).toBe(status);
      expect(english.json().detail).toBe(en);
    }
    // Nothing was held or filed by any refusal.
    expect(await balanceCents(t, c.accountId)).toBe(10_000);
    expect(await requestCount(c.accountId)).toBe(0);

    // The current month is still valid (a card runs to the end of its month); exactly the balance may be withdrawn.
    const thisMonth = await file(c, {
      amount: 100,
      card_number: MASTERCARD,
      card_holder: 'Order Checker',
      card_expiry: expiryIn(0),
    });
    expect(thisMonth.statusCode, thisMonth.body).toBe(201);
    expect(thisMonth.json().balance).toBe(0);
    await expectLedgerConsistent(t);
  });

  it('files a request: the amount is held at once, the card stored encrypted and answered masked', async () => {
    await fund(t, alice.accountId, 50_000); // $500
    const res = await file(
      alice,
      body({ amount: 120.5, card_number: '4111 1111 1111 1111', card_holder: '  alice withdrawer ' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      status: 'pending',
      amount: 120.5,
      card_number: '**** **** **** 1111',
      card_last4: '1111',
      card_holder: 'ALICE WITHDRAWER',
      card_expiry: VALID_EXPIRY,
      processed_at: null,
      reject_reason: null,
      balance: 379.5,
    });
    expect(Object.keys(created)).not.toContain('card_number_enc');
    expect(await balanceCents(t, alice.accountId)).toBe(37_950);

    const hold = await t.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('reference', '=', `withdrawal:${created.id}:hold`)
      .executeTakeFirstOrThrow();
    expect(hold).toMatchObject({ kind: 'withdrawal_hold', actor_id: alice.userId });
    expect(Number(hold.amount_cents)).toBe(-12_050);
    expect(Number(hold.balance_after_cents)).toBe(37_950);

    // D7: only the last 4 digits in clear; the rest is AES-GCM ciphertext that the configured key opens.
    const row = await requestRow(created.id);
    expect(row.card_last4).toBe('1111');
    expect(row.card_number_enc).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect(row.card_number_enc).not.toContain(VISA);
    expect(new SecretsVault({ key: KEY, dataDir: '/nonexistent' }).decryptCard(row.card_number_enc)).toBe(VISA);
    expect(Number(row.client_id)).toBe(alice.clientId);
    expect(row.user_id).toBe(alice.userId);

    const mine = await call('GET', '/api/my-withdraw-requests', alice.token);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().total).toBe(1);
    expect(mine.json().items[0]).toMatchObject({
      id: created.id,
      status: 'pending',
      card_number: '**** **** **** 1111',
    });
    expect((await call('GET', '/api/my-withdraw-requests', bob.token)).json()).toEqual({ items: [], total: 0 });
    await expectLedgerConsistent(t);
  });

  it('refuses bad input with 400 naming the field: unknown fields (card_cvv), wrong types, too long', async () => {
    const before = await balanceCents(t, alice.accountId);
    const cases: [unknown, string][] = [
      [body({ card_cvv: '123' }), 'card_cvv'],
      [body({ cvv: '123' }), 'cvv'],
      [body({ amount: '100' }), 'amount'],
      [body({ amount: null }), 'amount'],
      [body({ card_number: 4111111111111111 }), 'card_number'],
      [body({ card_holder: ['A'] }), 'card_holder'],
      [body({ card_expiry: 1230 }), 'card_expiry'],
      [body({ card_number: '4'.repeat(41) }), 'card_number'],
      [body({ card_holder: 'A'.repeat(101) }), 'card_holder'],
      [body({ card_expiry: '12/3012/30x' }), 'card_expiry'],
      [{ amount: 100, card_holder: 'A', card_expiry: VALID_EXPIRY }, 'card_number'],
    ];
    for (const [payload, field] of cases) {
      const res = await file(alice, payload);
      expect(res.statusCode, `${JSON.stringify(payload).slice(0, 80)}: ${res.body}`).toBe(400);
      expect(res.json().detail).toContain(field);
      expect(res.json().code).toBe('validation_error');
    }
    const en = await file(alice, body({ card_cvv: '123' }), { 'accept-language': 'en' });
    expect(en.json().detail).toBe('body: unknown fields: card_cvv');
    expect(await balanceCents(t, alice.accountId)).toBe(before);

    const staffCases: [string, unknown, string][] = [
      ['/api/withdraw-requests?status=done', undefined, 'status'],
      ['/api/withdraw-requests?client_id=abc', undefined, 'client_id'],
      ['/api/withdraw-requests?date_from=2026-13-01', undefined, 'date_from'],
      ['/api/withdraw-requests?processed_by=me', undefined, 'processed_by'],
      ['/api/withdraw-requests?card_number=1', undefined, 'card_number'],
    ];
    for (const [url, , field] of staffCases) {
      const res = await call('GET', url, superadmin.token);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().detail).toContain(field);
    }
    // Reject's body is optional, but what is sent is checked.
    for (const [payload, field] of [
      [{ reason: 123 }, 'reason'],
      [{ reason: 'x'.repeat(501) }, 'reason'],
      [{ reason: 'ok', force: true }, 'force'],
      [[1, 2], 'body'],
    ] as const) {
      const res = await call('PUT', '/api/withdraw-requests/1/reject', superadmin.token, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().detail).toContain(field);
    }
    for (const url of [
      '/api/withdraw-requests/abc/approve',
      '/api/withdraw-requests/0/reject',
      '/api/withdraw-requests/1.5/reveal-card',
    ]) {
      const res = await call(url.endsWith('card') ? 'POST' : 'PUT', url, superadmin.token);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().detail).toContain('id');
    }
    for (const url of [
      '/api/withdraw-requests/999999/approve',
      `/api/withdraw-requests/${Number.MAX_SAFE_INTEGER}/reject`,
    ]) {
      expect((await call('PUT', url, superadmin.token)).statusCode, url).toBe(404);
    }
    expect((await call('POST', '/api/withdraw-requests/999999/reveal-card', superadmin.token)).statusCode).toBe(404);
  });

  it('has one effect per Idempotency-Key, also for simultaneous retries; another body under the key is refused', async () => {
    const c = await registerClient(t, 'Idem Potent');
    await fund(t, c.accountId, 100_000);
    const first = await file(c, body({ amount: 25 }), { 'idempotency-key': 'wd-1' });
    expect(first.statusCode).toBe(201);
    const again = await file(c, body({ amount: 25 }), { 'idempotency-key': 'wd-1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const other = await file(c, body({ amount: 26 }), { 'idempotency-key': 'wd-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json().detail).toBe('Этот Idempotency-Key уже использован с другим запросом');

    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        Array.from({ length: 4 }, () => file(c, body({ amount: 10 + i }), { 'idempotency-key': `wd-burst-${i}` })),
      ).flat(),
    );
    expect(burst.map((r) => r.statusCode).every((s) => s === 201)).toBe(true);
    for (let i = 0; i < 10; i++) expect(new Set(burst.slice(i * 4, i * 4 + 4).map((r) => r.json().id)).size).toBe(1);
    expect(await requestCount(c.accountId)).toBe(11);
    // $25 + ($10 + … + $19) = $170 held, once each.
    expect(await balanceCents(t, c.accountId)).toBe(100_000 - 17_000);
    await expectLedgerConsistent(t);
  });

  it('lets exactly as many of 100 simultaneous requests through as the balance allows, never below 0', async () => {
    const c = await registerClient(t, 'Rush Hour');
    await fund(t, c.accountId, 37_000); // $370: room for 37 requests of $10
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => file(c, body({ amount: 10, card_number: CARDS[i % 3] }))),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(37);
    expect(statuses.filter((s) => s === 409)).toHaveLength(63);
    for (const r of results.filter((x) => x.statusCode === 409)) {
      expect(r.json().detail).toMatch(/^Недостаточно средств на счете\. Доступно: \$\d+\.\d{2}, запрошено: \$10\.00$/);
    }
    expect(await balanceCents(t, c.accountId)).toBe(0);
    expect(await requestCount(c.accountId)).toBe(37);
    const afters = (
      await t.db
        .selectFrom('ledger_entries')
        .select('balance_after_cents')
        .where('account_id', '=', c.accountId)
        .where('kind', '=', 'withdrawal_hold')
        .orderBy('id')
        .execute()
    ).map((e) => Number(e.balance_after_cents));
    expect(afters).toEqual(Array.from({ length: 37 }, (_, i) => 36_000 - i * 1_000));
    await expectLedgerConsistent(t);
  });

  it('has one effect per key when 100 keyed requests beyond the balance are each sent twice at the same moment', async () => {
    const c = await registerClient(t, 'Double Sender');
    await fund(t, c.accountId, 37_000); // $370: room for 37 of the 100 requests of $10
    const keys = Array.from({ length: 100 }, (_, i) => `wd-twice-${i}`);
    // Each key's two calls are the same request (same key, same body), sent together with all the others.
    const results = await Promise.all(
      keys.flatMap((key, i) =>
        [0, 1].map(() => file(c, body({ amount: 10, card_number: CARDS[i % 3] }), { 'idempotency-key': key })),
      ),
    );
    const pairs = keys.map((_, i) => [results[2 * i]!, results[2 * i + 1]!] as const);
    // Both answers of a key are the same: the one request it filed, or the one refusal stored for it.
    for (const [i, [a, b]] of pairs.entries()) {
      expect([b.statusCode, b.json()], keys[i]).toEqual([a.statusCode, a.json()]);
    }
    const filed = pairs.filter(([a]) => a.statusCode === 201);
    const refused = pairs.filter(([a]) => a.statusCode === 409);
    expect(filed).toHaveLength(37);
    expect(refused).toHaveLength(63);
    for (const [a] of refused) {
      expect(a.json().detail).toBe('Недостаточно средств на счете. Доступно: $0.00, запрошено: $10.00');
    }
    // Of each filed pair, one call did the work and the other was answered from the stored result.
    for (const pair of filed) {
      expect(pair.map((r) => r.headers['idempotent-replayed'] === 'true').sort()).toEqual([false, true]);
    }
    const ids = filed.map(([a]) => a.json().id as number);
    expect(new Set(ids).size).toBe(37);

    expect(await balanceCents(t, c.accountId)).toBe(0);
    const stored = await t.db
      .selectFrom('withdraw_requests')
      .select('id')
      .where('account_id', '=', c.accountId)
      .orderBy('id')
      .execute();
    expect(stored.map((r) => Number(r.id))).toEqual([...ids].sort((a, b) => a - b));
    // One hold per filed key, each balance on the way at or above 0.
    const holds = await t.db
      .selectFrom('ledger_entries')
      .select(['reference', 'balance_after_cents'])
      .where('account_id', '=', c.accountId)
      .where('kind', '=', 'withdrawal_hold')
      .orderBy('id')
      .execute();
    expect(holds.map((e) => e.reference).sort()).toEqual(ids.map((id) => `withdrawal:${id}:hold`).sort());
    expect(holds.map((e) => Number(e.balance_after_cents))).toEqual(
      Array.from({ length: 37 }, (_, i) => 36_000 - i * 1_000),
    );
    await expectLedgerConsistent(t);
  });

  it('lists requests for staff: scoped, filtered, paged on the server, with the summary cards', async () => {
    await fund(t, bob.accountId, 100_000);
    const b1 = (await file(bob, body({ amount: 40, card_number: MASTERCARD, card_holder: 'Bob Saver' }))).json();
    const b2 = (await file(bob, body({ amount: 60, card_number: VISA_DEBIT, card_holder: 'Bob Saver' }))).json();
    // Dates are days of the business time zone: 21:30 UTC on 1 March is 23:30 in Kyiv, 22:30 UTC is 00:30 on 2 March.
    await t.db
      .updateTable('withdraw_requests')
      .set({ created_at: new Date('2026-03-01T21:30:00Z') })
      .where('id', '=', b1.id)
      .execute();
    await t.db
      .updateTable('withdraw_requests')
      .set({ created_at: new Date('2026-03-01T22:30:00Z') })
      .where('id', '=', b2.id)
      .execute();

    const all = await call('GET', `/api/withdraw-requests?client_id=${bob.clientId}`, superadmin.token);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().total).toBe(2);
    expect(all.json().items.map((i: { id: number }) => i.id)).toEqual([b2.id, b1.id]);
    expect(all.json().items[0]).toMatchObject({
      id: b2.id,
      client_id: bob.clientId,
      client_name: 'Bob Saver',
      client_email: bob.email,
      account_id: bob.accountId,
      amount: 60,
      status: 'pending',
      card_number: '**** **** **** 5556',
      card_last4: '5556',
      card_holder: 'BOB SAVER',
      card_expiry: VALID_EXPIRY,
      processed_by: null,
      processed_by_name: null,
      created_at: '2026-03-01T22:30:00.000Z',
    });
    expect(all.json().summary).toEqual({
      total_count: 2,
      total_amount: 100,
      pending_count: 2,
      pending_amount: 100,
      awaiting_second_approval_count: 0,
      awaiting_second_approval_amount: 0,
      approved_count: 0,
      approved_amount: 0,
      rejected_count: 0,
      rejected_amount: 0,
    });

    const day = await call('GET', '/api/withdraw-requests?date_from=2026-03-02&date_to=2026-03-02', superadmin.token);
    expect(day.json().items.map((i: { id: number }) => i.id)).toEqual([b2.id]);
    const before = await call('GET', '/api/withdraw-requests?date_to=2026-03-01', superadmin.token);
    expect(before.json().items.map((i: { id: number }) => i.id)).toEqual([b1.id]);
    const asc = await call(
      'GET',
      `/api/withdraw-requests?client_id=${bob.clientId}&order=asc&per_page=1&page=2`,
      superadmin.token,
    );
    expect(asc.json().items.map((i: { id: number }) => i.id)).toEqual([b2.id]);
    expect(asc.json().total).toBe(2);

    for (const search of ['bob sav', bob.email.toUpperCase()]) {
      const res = await call('GET', `/api/withdraw-requests?search=${encodeURIComponent(search)}`, superadmin.token);
      expect(
        res.json().items.map((i: { id: number }) => i.id),
        search,
      ).toEqual(expect.arrayContaining([b1.id, b2.id]));
      expect(
        res.json().items.every((i: { client_id: number }) => i.client_id === bob.clientId),
        search,
      ).toBe(true);
    }
    // A number also matches the client id (and a request id or an amount).
    const byClientId = await call(
      'GET',
      `/api/withdraw-requests?search=${bob.clientId}&per_page=200`,
      superadmin.token,
    );
    expect(byClientId.json().items.map((i: { id: number }) => i.id)).toEqual(expect.arrayContaining([b1.id, b2.id]));
    const byRequestId = await call('GET', `/api/withdraw-requests?search=${b1.id}&per_page=200`, superadmin.token);
    expect(byRequestId.json().items.map((i: { id: number }) => i.id)).toContain(b1.id);
    const byAmount = await call('GET', '/api/withdraw-requests?search=60.00', superadmin.token);
    expect(byAmount.json().items.map((i: { id: number }) => i.id)).toContain(b2.id);
    expect(byAmount.json().items.map((i: { id: number }) => i.id)).not.toContain(b1.id);
    const pct = await call('GET', `/api/withdraw-requests?search=${encodeURIComponent('%')}`, superadmin.token);
    expect(pct.json().total).toBe(0);

    // D5: a retention manager sees only the requests of their own clients.
    const mine = await call('GET', '/api/withdraw-requests?per_page=200', retentionManager.token);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().items.length).toBeGreaterThan(0);
    expect(mine.json().items.every((i: { client_id: number }) => i.client_id === alice.clientId)).toBe(true);
    expect(
      (await call('GET', `/api/withdraw-requests?client_id=${bob.clientId}`, retentionManager.token)).json().total,
    ).toBe(0);
    // finance.view: sales roles do not see the page at all; a client neither.
    for (const role of ['sales_manager', 'team_lead_sales'] as const) {
      const u = await t.userWithToken(role);
      expect((await call('GET', '/api/withdraw-requests', u.token)).statusCode).toBe(403);
    }
    expect((await call('GET', '/api/withdraw-requests', alice.token)).statusCode).toBe(403);
    expect((await call('POST', '/api/withdraw-requests', superadmin.token, body())).statusCode).toBe(403);
  });

  it('approves a pending request once: the hold becomes final, who and when are recorded and audited', async () => {
    // Its own money, so that it passes alone too (not only after the test that funds Alice).
    await fund(t, alice.accountId, 3_000);
    const req = (await file(alice, body({ amount: 30 }))).json();
    const held = await balanceCents(t, alice.accountId);
    const res = await call('PUT', `/api/withdraw-requests/${req.id}/approve`, retentionManager.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: req.id,
      status: 'approved',
      processed_by: retentionManager.id,
      processed_by_name: expect.stringContaining('retention_manager'),
      amount: 30,
      card_number: '**** **** **** 1111',
    });
    expect(res.json().processed_at).not.toBeNull();
    expect(await balanceCents(t, alice.accountId)).toBe(held);
    const row = await requestRow(req.id);
    expect(row.status).toBe('approved');
    expect(row.processed_by).toBe(retentionManager.id);

    const audit = (await t.auditRows('withdrawal.approve')).filter((a) => a.entity_id === String(req.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: retentionManager.id,
      before: { status: 'pending', client_id: alice.clientId, amount: 30, card_last4: '1111' },
      after: { status: 'approved' },
    });

    const twice = await call('PUT', `/api/withdraw-requests/${req.id}/approve`, superadmin.token);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toBe('Заявка уже одобрена: одобрить или отклонить можно только заявку на рассмотрении');
    const rejectAfter = await call(
      'PUT',
      `/api/withdraw-requests/${req.id}/reject`,
      superadmin.token,
      {},
      { 'accept-language': 'en' },
    );
    expect(rejectAfter.statusCode).toBe(409);
    expect(rejectAfter.json().detail).toBe(
      'The request has already been approved: only a pending request can be approved or rejected',
    );
    expect(await balanceCents(t, alice.accountId)).toBe(held);
    expect((await t.auditRows('withdrawal.approve')).filter((a) => a.entity_id === String(req.id))).toHaveLength(1);
    await expectLedgerConsistent(t);
  });

  it('rejects a pending request once: the held amount returns, with the reason, audited', async () => {
    const before = await balanceCents(t, alice.accountId);
    const req = (await file(alice, body({ amount: 45.25 }))).json();
    expect(await balanceCents(t, alice.accountId)).toBe(before - 4_525);
    const res = await call('PUT', `/api/withdraw-requests/${req.id}/reject`, superadmin.token, {
      reason: '  Карта не принадлежит клиенту ',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: req.id,
      status: 'rejected',
      reject_reason: 'Карта не принадлежит клиенту',
      processed_by: superadmin.id,
      balance: before / 100,
    });
    expect(await balanceCents(t, alice.accountId)).toBe(before);
    const release = await t.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('reference', '=', `withdrawal:${req.id}:release`)
      .executeTakeFirstOrThrow();
    expect(release.kind).toBe('withdrawal_release');
    expect(Number(release.amount_cents)).toBe(4_525);
    expect(release.actor_id).toBe(superadmin.id);
    expect(release.reason).toBe('Карта не принадлежит клиенту');

    const audit = (await t.auditRows('withdrawal.reject')).filter((a) => a.entity_id === String(req.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: superadmin.id,
      before: { status: 'pending', amount: 45.25, client_id: alice.clientId },
      after: { status: 'rejected', reason: 'Карта не принадлежит клиенту', released: 45.25, balance: before / 100 },
    });
    const twice = await call('PUT', `/api/withdraw-requests/${req.id}/reject`, superadmin.token);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toBe(
      'Заявка уже отклонена: одобрить или отклонить можно только заявку на рассмотрении',
    );
    expect((await call('PUT', `/api/withdraw-requests/${req.id}/approve`, superadmin.token)).statusCode).toBe(409);
    expect(await balanceCents(t, alice.accountId)).toBe(before);

    // The spec's call sends no body at all; the reason is then empty.
    const plain = (await file(alice, body({ amount: 10 }))).json();
    const noBody = await call('PUT', `/api/withdraw-requests/${plain.id}/reject`, retentionManager.token);
    expect(noBody.statusCode, noBody.body).toBe(200);
    expect(noBody.json().reject_reason).toBeNull();
    expect(await balanceCents(t, alice.accountId)).toBe(before);
    await expectLedgerConsistent(t);
  });

  it('processes a request exactly once when approves and rejects arrive together', async () => {
    const before = await balanceCents(t, alice.accountId);
    const req = (await file(alice, body({ amount: 50 }))).json();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(
          'PUT',
          `/api/withdraw-requests/${req.id}/${i % 2 ? 'approve' : 'reject'}`,
          i % 3 ? superadmin.token : retentionManager.token,
        ),
      ),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(19);
    const row = await requestRow(req.id);
    const releases = await t.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('reference', '=', `withdrawal:${req.id}:release`)
      .execute();
    if (row.status === 'rejected') {
      expect(releases).toHaveLength(1);
      expect(await balanceCents(t, alice.accountId)).toBe(before);
    } else {
      expect(row.status).toBe('approved');
      expect(releases).toHaveLength(0);
      expect(await balanceCents(t, alice.accountId)).toBe(before - 5_000);
    }
    const audits = (await t.auditRows()).filter(
      (a) => a.entity_id === String(req.id) && a.action.startsWith('withdrawal.'),
    );
    expect(audits).toHaveLength(1);
    await expectLedgerConsistent(t);
  });

  it("answers 404 to a manager for another manager's client's request, and changes nothing", async () => {
    const req = (await file(bob, body({ amount: 15, card_number: MASTERCARD }))).json();
    const before = await balanceCents(t, bob.accountId);
    const auditsBefore = await t.auditCount();
    for (const [method, url] of [
      ['PUT', `/api/withdraw-requests/${req.id}/approve`],
      ['PUT', `/api/withdraw-requests/${req.id}/reject`],
      ['POST', `/api/withdraw-requests/${req.id}/reveal-card`],
    ] as const) {
      const res = await call(method, url, retentionManager.token);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().detail).toBe('Заявка на вывод не найдена');
    }
    expect((await requestRow(req.id)).status).toBe('pending');
    expect(await balanceCents(t, bob.accountId)).toBe(before);
    expect(await t.auditCount()).toBe(auditsBefore);
    // Its own manager may.
    expect((await call('PUT', `/api/withdraw-requests/${req.id}/approve`, otherManager.token)).statusCode).toBe(200);
  });

  it('reveals the full number only on request, writes the reveal to the audit log without the number', async () => {
    const req = (await file(bob, body({ amount: 11, card_number: '5555 5555 5555 4444' }))).json();
    const res = await t.inject({
      method: 'POST',
      url: `/api/withdraw-requests/${req.id}/reveal-card`,
      token: otherManager.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ card_number: MASTERCARD });
    expect(res.headers['cache-control']).toBe('no-store');
    const audit = (await t.auditRows('withdrawal.card_reveal')).filter((a) => a.entity_id === String(req.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: otherManager.id,
      after: { client_id: bob.clientId, card_last4: '4444', status: 'pending' },
    });
    expect(JSON.stringify(audit[0])).not.toContain(MASTERCARD);
    // Every reveal is recorded, not only the first.
    await t.inject({ method: 'POST', url: `/api/withdraw-requests/${req.id}/reveal-card`, token: superadmin.token });
    expect((await t.auditRows('withdrawal.card_reveal')).filter((a) => a.entity_id === String(req.id))).toHaveLength(2);
    // A role without finance.view, and the client itself, cannot reveal.
    const sales = await t.userWithToken('team_lead_sales');
    expect(
      (await t.inject({ method: 'POST', url: `/api/withdraw-requests/${req.id}/reveal-card`, token: sales.token }))
        .statusCode,
    ).toBe(403);
    expect(
      (await t.inject({ method: 'POST', url: `/api/withdraw-requests/${req.id}/reveal-card`, token: bob.token }))
        .statusCode,
    ).toBe(403);
  });

  it('never lets a full card number into the audit log, the server log or any other answer', async () => {
    const dump = await sql<{ row: string }>`select a::text as row from audit_log a`.execute(t.db);
    expect(dump.rows.length).toBeGreaterThan(0);
    const auditText = dump.rows.map((r) => r.row).join('\n');
    const log = logLines.join('');
    // The log did record this suite's calls, so the absence below means something.
    expect(log).toContain('/api/withdraw-requests');
    const everyAnswer = answers.join('\n');
    expect(everyAnswer).toContain('**** **** **** 4444');
    for (const card of CARDS) {
      for (const [where, text] of [
        ['audit log', auditText],
        ['server log', log],
        ['answers', everyAnswer],
      ] as const) {
        expect(text.includes(card), `${card} in the ${where}`).toBe(false);
        expect(text.includes(card.replace(/(\d{4})(?=\d)/g, '$1 ')), `${card} grouped in the ${where}`).toBe(false);
      }
    }
    // The table holds it only as ciphertext.
    const stored = await sql<{ row: string }>`select w::text as row from withdraw_requests w`.execute(t.db);
    for (const card of CARDS) expect(stored.rows.some((r) => r.row.includes(card))).toBe(false);
    expect(await reconcile(t.db)).toEqual([]);
  });
});

describe.each(dbKinds())('the demo data set on %s', (kind) => {
  it('gives the demo client one withdrawal request of each status and two messages, with a reconciling ledger', async () => {
    const database = await freshDatabase(kind);
    try {
      await seedDemoData(database.db, new SecretsVault({ key: KEY, dataDir: '/nonexistent' }));
      // The demo client's own requests: the unlisted traders of the demo client base file more of their own.
      const demoClient = await database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'client@demo.local')
        .executeTakeFirstOrThrow();
      const requests = await database.db
        .selectFrom('withdraw_requests')
        .selectAll()
        .where('user_id', '=', demoClient.id)
        .orderBy('id')
        .execute();
      expect(requests.map((r) => [r.status, Number(r.amount_cents)])).toEqual([
        ['approved', 10_000],
        ['rejected', 5_000],
        ['pending', 15_000],
      ]);
      expect(requests.every((r) => r.card_number_enc.startsWith('v1:'))).toBe(true);
      const account = await database.db
        .selectFrom('trading_accounts')
        .select('balance_cents')
        .where('id', '=', requests[0]!.account_id)
        .executeTakeFirstOrThrow();
      expect(Number(account.balance_cents)).toBe(100_000 - 10_000 - 15_000);
      expect(await reconcile(database.db)).toEqual([]);
      const messages = await database.db
        .selectFrom('client_messages')
        .selectAll()
        .where('user_id', '=', demoClient.id)
        .execute();
      expect(messages).toHaveLength(2);
      expect(messages.filter((m) => m.read_at === null)).toHaveLength(1);
    } finally {
      await database.close();
    }
  });
});
