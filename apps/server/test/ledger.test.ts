import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIdempotent } from '../src/platform/http/idempotency.js';
import { postEntry, reconcile } from '../src/modules/ledger/service.js';
import { HttpError } from '../src/platform/http/errors.js';
import { createTestApp, dbKinds, runAdminCommand, type TestApp } from './helpers.js';
import { balanceCents, registerClient, type TestClient } from './trading-helpers.js';

/** The ledger (decisions.md D3): the only writer of balances, exactly once per reference, never below 0. */
describe.each(dbKinds())('ledger on %s', (kind) => {
  let t: TestApp;
  let a: TestClient;
  let b: TestClient;

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' });
    a = await registerClient(t);
    b = await registerClient(t);
  });
  afterAll(() => t.close());

  const post = (
    accountId: number,
    amountCents: number,
    reference: string,
    kindName: 'deposit' | 'adjustment' = 'deposit',
  ) =>
    t.db
      .transaction()
      .execute((trx) =>
        postEntry(trx, { accountId, kind: kindName, amountCents, reference, actor: null, reason: 'test' }),
      );

  it('moves the balance with each entry and records the balance after it', async () => {
    const first = await post(a.accountId, 1_000, 'ledger-test:1');
    const second = await post(a.accountId, -250, 'ledger-test:2', 'adjustment');
    expect(first).toMatchObject({
      created: true,
      entry: { amountCents: 1_000, balanceAfterCents: 1_000, kind: 'deposit' },
    });
    expect(second.entry.balanceAfterCents).toBe(750);
    expect(await balanceCents(t, a.accountId)).toBe(750);
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('refuses a result below 0 and writes nothing', async () => {
    await expect(post(a.accountId, -751, 'ledger-test:3', 'adjustment')).rejects.toMatchObject({
      statusCode: 409,
      code: 'insufficient_funds',
    });
    expect(await balanceCents(t, a.accountId)).toBe(750);
    const entry = await t.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('reference', '=', 'ledger-test:3')
      .executeTakeFirst();
    expect(entry).toBeUndefined();
    // Down to exactly 0 is allowed.
    await post(a.accountId, -750, 'ledger-test:4', 'adjustment');
    expect(await balanceCents(t, a.accountId)).toBe(0);
  });

  it('posts a reference once: a repeat returns the first entry and changes nothing', async () => {
    const first = await post(b.accountId, 500, 'ledger-test:once');
    const again = await post(b.accountId, 500, 'ledger-test:once');
    expect(again.created).toBe(false);
    expect(again.entry).toEqual(first.entry);
    expect(await balanceCents(t, b.accountId)).toBe(500);
    // Concurrent postings of one reference: still one entry.
    const results = await Promise.all(Array.from({ length: 10 }, () => post(b.accountId, 100, 'ledger-test:race')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await balanceCents(t, b.accountId)).toBe(600);
    await expect(post(a.accountId, 100, 'ledger-test:race')).rejects.toThrow(/another account/);
    expect(await reconcile(t.db)).toEqual([]);
  });

  it('is enforced by the database too: no negative balance, no change to an entry', async () => {
    await expect(
      t.db.updateTable('trading_accounts').set({ balance_cents: -1 }).where('id', '=', a.accountId).execute(),
    ).rejects.toThrow();
    await expect(
      t.db.updateTable('ledger_entries').set({ amount_cents: 1 }).where('reference', '=', 'ledger-test:1').execute(),
    ).rejects.toThrow(/append-only/);
    await expect(t.db.deleteFrom('ledger_entries').where('reference', '=', 'ledger-test:1').execute()).rejects.toThrow(
      /append-only/,
    );
  });

  it('reconcile finds a balance that was changed outside the ledger', async () => {
    await t.db.updateTable('trading_accounts').set({ balance_cents: 999 }).where('id', '=', b.accountId).execute();
    expect(await reconcile(t.db)).toEqual([
      { accountId: b.accountId, balanceCents: 999, ledgerCents: 600, lastBalanceAfterCents: 600, badEntryIds: [] },
    ]);
    await t.db.updateTable('trading_accounts').set({ balance_cents: 600 }).where('id', '=', b.accountId).execute();
    expect(await reconcile(t.db)).toEqual([]);
  });

  describe('Idempotency-Key', () => {
    let effects = 0;
    const call = (key: string | undefined, request: unknown, amount = 100) =>
      runIdempotent(t.db, { userId: a.userId, route: 'TEST /ledger', key, request }, async (trx) => {
        effects += 1;
        const { entry } = await postEntry(trx, {
          accountId: a.accountId,
          kind: 'deposit',
          amountCents: amount,
          reference: `idem-test:${effects}:${Math.random()}`,
          actor: null,
        });
        return { status: 201, body: { entry_id: entry.id, balance: entry.balanceAfterCents } };
      });

    it('answers a retry with the first answer and runs the effect once', async () => {
      const before = effects;
      const first = await call('k-1', { amount: 1, nested: { b: 2, a: 1 } });
      const retry = await call('k-1', { nested: { a: 1, b: 2 }, amount: 1 }); // same request, keys in another order
      expect(retry).toEqual({ ...first, replayed: true });
      expect(effects - before).toBe(1);
      await expect(call('k-1', { amount: 2 })).rejects.toMatchObject({
        statusCode: 409,
        code: 'idempotency_key_reused',
      });
      // The same key on another route, or by another user, is another key.
      const other = await runIdempotent(
        t.db,
        { userId: b.userId, route: 'TEST /ledger', key: 'k-1', request: {} },
        async () => ({ status: 200, body: { ok: true } }),
      );
      expect(other.replayed).toBe(false);
    });

    it('runs concurrent first calls with one key once', async () => {
      const before = effects;
      const results = await Promise.all(Array.from({ length: 8 }, () => call('k-race', { x: 1 })));
      expect(effects - before).toBe(1);
      for (const r of results) expect(r.body).toEqual(results[0]!.body);
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    });

    it('remembers a business refusal, but not a failure of the server', async () => {
      const refuse = () =>
        runIdempotent(t.db, { userId: a.userId, route: 'TEST /ledger', key: 'k-refused', request: {} }, async () => {
          throw new HttpError(409, 'insufficient_funds');
        });
      await expect(refuse()).rejects.toMatchObject({ statusCode: 409 });
      let ran = false;
      const replay = runIdempotent(
        t.db,
        { userId: a.userId, route: 'TEST /ledger', key: 'k-refused', request: {} },
        async () => {
          ran = true;
          return { status: 200, body: {} };
        },
      );
      await expect(replay).rejects.toMatchObject({ statusCode: 409, code: 'insufficient_funds' });
      expect(ran).toBe(false);

      let attempts = 0;
      const flaky = () =>
        runIdempotent(t.db, { userId: a.userId, route: 'TEST /ledger', key: 'k-crash', request: {} }, async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('connection lost');
          return { status: 200, body: { attempt: attempts } };
        });
      await expect(flaky()).rejects.toThrow('connection lost');
      expect((await flaky()).body).toEqual({ attempt: 2 });
    });

    it('refuses a malformed key and runs without one', async () => {
      await expect(call('has space', {})).rejects.toMatchObject({ statusCode: 400, code: 'idempotency_key_invalid' });
      await expect(call('x'.repeat(201), {})).rejects.toMatchObject({ statusCode: 400 });
      const before = effects;
      await call(undefined, {});
      await call(undefined, {});
      expect(effects - before).toBe(2);
      expect(await reconcile(t.db)).toEqual([]);
    });
  });
});

describe.each(dbKinds())('reconcile-ledger command on %s', (kind) => {
  it('reports a clean ledger with exit code 0 and a mismatch with exit code 1', async () => {
    const dataDir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-cli-')) : undefined;
    let t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' }, dataDir ? { dataDir } : {});
    try {
      const c = await registerClient(t);
      await t.db.transaction().execute((trx) =>
        postEntry(trx, {
          accountId: c.accountId,
          kind: 'deposit',
          amountCents: 700,
          reference: 'cli-test:1',
          actor: null,
        }),
      );
      const clean = await runAdminCommand(t, ['reconcile-ledger']);
      t = clean.t;
      expect(clean.code).toBe(0);
      expect(clean.output).toContain('Ledger reconciled');
      await t.db.updateTable('trading_accounts').set({ balance_cents: 1 }).where('id', '=', c.accountId).execute();
      const broken = await runAdminCommand(t, ['reconcile-ledger']);
      t = broken.t;
      expect(broken.code).toBe(1);
      expect(broken.output).toContain(`Account ${c.accountId}: balance 1 cents, ledger 700 cents`);
    } finally {
      await t.close();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
