import { randomBytes } from 'node:crypto';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_KINDS, type StatementEntry, type StatementResponse } from '@brokerage/shared';
import { seededRandom } from '../src/seed/demo-leads.js';
import { dbKinds } from './helpers.js';
import {
  T0,
  balanceCents,
  createTradingApp,
  expectLedgerConsistent,
  fund,
  placeTrade,
  registerClient,
  voidTradeByTwo,
  type TestClient,
  type TradingTestApp,
} from './trading-helpers.js';

/**
 * The client's account statement (issue 14, item 3): a seeded random sequence of deposits, trades settled on a
 * replayed price clock, voids, adjustments, withdrawals and rejects; then every page, every kind filter and both files
 * must satisfy opening + Σ entries = closing and carry every entry.
 */
const KEY = randomBytes(32).toString('base64');
const VISA = '4111111111111111';
const EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
const FORMULA_REASON = '=HYPERLINK("http://evil.example","click")';

/** EURUSD: a seeded random walk, one tick a second for 20 minutes, with repeated prices so ties happen too. */
function priceRows(): { t: number; symbol: string; price: string }[] {
  const rnd = seededRandom(1401);
  let p = 110000;
  const rows = [];
  for (let s = 0; s <= 1200; s++) {
    const r = rnd();
    p += r < 0.4 ? -3 : r < 0.6 ? 0 : 3;
    rows.push({ t: s * 1000, symbol: 'EURUSD', price: (p / 100000).toFixed(5) });
  }
  return rows;
}

const cents = (dollars: number) => Math.round(dollars * 100);
const sumCents = (entries: StatementEntry[]) => entries.reduce((s, e) => s + cents(e.amount), 0);

describe.each(dbKinds())('account statement on %s', (kind) => {
  let app: TradingTestApp;
  let alice: TestClient;
  let bob: TestClient;
  let staff: { token: string };
  /** The second person a void needs (finance.approve). */
  let approver: { token: string };
  /** Every ledger entry of alice's account, as the database holds it. */
  let ledger: { id: number; kind: string; amount: number; balance_after: number; created_at: Date }[];
  const counts: Record<string, number> = {};

  const get = (token: string, url: string, headers: Record<string, string> = {}) =>
    app.t.inject({ method: 'GET', url, token, headers });

  beforeAll(async () => {
    app = await createTradingApp(kind, priceRows(), { CARD_ENCRYPTION_KEY: KEY });
    alice = await registerClient(app.t, 'Alice Statement');
    bob = await registerClient(app.t, 'Bob Other');
    staff = await app.t.userWithToken('superadmin');
    approver = await app.t.userWithToken('admin');
    await fund(app.t, bob.accountId, 77_700);
    await app.t.inject({
      method: 'POST',
      url: `/api/trading/admin/accounts/${bob.accountId}/balance`,
      token: staff.token,
      payload: { action: 'add', amount: 1, reason: 'bob-only reason' },
    });

    const rnd = seededRandom(20261125);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)]!;
    const step = (what: string) => void (counts[what] = (counts[what] ?? 0) + 1);
    let second = 1;
    await fund(app.t, alice.accountId, 50_000);
    step('deposit');
    const pendingWithdrawals: number[] = [];
    for (let i = 0; i < 60; i++) {
      const r = rnd();
      const balance = await balanceCents(app.t, alice.accountId);
      if (r < 0.15 || balance < 2_000) {
        await fund(app.t, alice.accountId, 1_000 + Math.floor(rnd() * 20_000));
        step('deposit');
      } else if (r < 0.6) {
        // A trade, settled on the replayed clock 5 s later; sometimes voided by staff before expiry.
        second += 2;
        app.clock.set(T0 + second * 1000);
        await app.pump();
        const amount = 1 + Math.floor(rnd() * Math.min(100, balance / 100 - 1));
        const res = await placeTrade(app.t, alice.token, {
          direction: pick(['call', 'put'] as const),
          amount,
          duration: 5,
          asset: 'EURUSD',
        });
        expect(res.statusCode, res.body).toBe(201);
        if (rnd() < 0.2) {
          await voidTradeByTwo(app.t, alice.accountId, res.json().trade.id, 'feed glitch', staff.token, approver.token);
          step('void');
        }
        second += 6;
        await app.settleAt(T0 + second * 1000);
        step('trade');
      } else if (r < 0.75) {
        const res = await app.t.inject({
          method: 'POST',
          url: `/api/trading/admin/accounts/${alice.accountId}/balance`,
          token: staff.token,
          payload: {
            action: pick(['add', 'subtract'] as const),
            amount: 1 + Math.floor(rnd() * 10),
            reason: counts.adjustment ? 'bonus correction' : FORMULA_REASON,
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        step('adjustment');
      } else {
        const res = await app.t.inject({
          method: 'POST',
          url: '/api/withdraw-requests',
          token: alice.token,
          payload: {
            amount: 10 + Math.floor(rnd() * 20),
            card_number: VISA,
            card_holder: 'Alice S',
            card_expiry: EXPIRY,
          },
        });
        if (res.statusCode === 201) {
          pendingWithdrawals.push(res.json().id ?? res.json().request?.id);
          step('withdrawal');
        }
        if (pendingWithdrawals.length > 0 && rnd() < 0.6) {
          const id = pendingWithdrawals.shift()!;
          const rej = await app.t.inject({
            method: 'PUT',
            url: `/api/withdraw-requests/${id}/reject`,
            token: staff.token,
            payload: { reason: 'card mismatch' },
          });
          expect(rej.statusCode, rej.body).toBe(200);
          step('reject');
        }
      }
    }
    const rows = await app.t.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('account_id', '=', alice.accountId)
      .orderBy('id')
      .execute();
    ledger = rows.map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      amount: Number(r.amount_cents),
      balance_after: Number(r.balance_after_cents),
      created_at: new Date(r.created_at),
    }));
  }, 120_000);
  afterAll(() => app.close());
  afterEach(() => expectLedgerConsistent(app.t));

  it('the random sequence touched every kind of entry', () => {
    expect(counts.trade).toBeGreaterThan(10);
    expect(counts.void).toBeGreaterThan(0);
    expect(counts.withdrawal).toBeGreaterThan(0);
    expect(counts.reject).toBeGreaterThan(0);
    const kinds = new Set(ledger.map((e) => e.kind));
    for (const k of [
      'deposit',
      'trade_stake',
      'trade_payout',
      'trade_refund',
      'withdrawal_hold',
      'withdrawal_release',
      'adjustment',
    ])
      expect(kinds, k).toContain(k);
  });

  /** Walks every page; checks the identity on each and returns all entries in order. */
  async function walk(
    query: string,
    perPage: number,
  ): Promise<{ pages: StatementResponse[]; entries: StatementEntry[] }> {
    const pages: StatementResponse[] = [];
    for (let page = 1; ; page++) {
      const res = await get(alice.token, `/api/trading/statement?${query}&page=${page}&per_page=${perPage}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as StatementResponse;
      expect(Object.keys(body).sort()).toEqual(['closing_balance', 'entries', 'opening_balance', 'total']);
      // The identity of the issue, in cents so no float can hide a cent.
      expect(cents(body.opening_balance) + sumCents(body.entries), `page ${page} of ${query}`).toBe(
        cents(body.closing_balance),
      );
      if (pages.length > 0) expect(body.opening_balance).toBe(pages.at(-1)!.closing_balance);
      pages.push(body);
      if (body.entries.length < perPage) break;
    }
    return { pages, entries: pages.flatMap((p) => p.entries) };
  }

  it('unfiltered: opening + entries = closing on every page for several page sizes, and the pages are the ledger', async () => {
    for (const perPage of [1, 7, 13, 50, 200]) {
      const { pages, entries } = await walk('', perPage);
      expect(entries.map((e) => e.id)).toEqual(ledger.map((e) => e.id));
      expect(pages[0]!.opening_balance).toBe(0);
      expect(cents(pages.at(-1)!.closing_balance)).toBe(await balanceCents(app.t, alice.accountId));
      expect(pages[0]!.total).toBe(ledger.length);
      // Each entry's balance_after is the running balance.
      let running = 0;
      for (const e of entries) {
        running += cents(e.amount);
        expect(cents(e.balance_after)).toBe(running);
      }
    }
  });

  it('entries carry their kind, the trade or request they belong to and the staff reason', async () => {
    const { entries } = await walk('', 200);
    for (const e of entries) {
      if (e.kind.startsWith('trade_')) expect(e.trade_id, JSON.stringify(e)).toBeGreaterThan(0);
      else expect(e.trade_id).toBeNull();
      if (e.kind.startsWith('withdrawal_')) expect(e.withdraw_request_id, JSON.stringify(e)).toBeGreaterThan(0);
      else expect(e.withdraw_request_id).toBeNull();
    }
    const trades = await app.t.db.selectFrom('trades').select(['id', 'account_id']).execute();
    const mine = new Set(trades.filter((t) => Number(t.account_id) === alice.accountId).map((t) => Number(t.id)));
    for (const e of entries.filter((x) => x.trade_id !== null)) expect(mine.has(e.trade_id!)).toBe(true);
    expect(entries.find((e) => e.kind === 'adjustment')!.reason).toBe(FORMULA_REASON);
    expect(entries.some((e) => e.kind === 'trade_refund' && e.reason === 'feed glitch')).toBe(true);
  });

  it('filtered by kind and by period: the identity holds and exactly the matching entries come back', async () => {
    const cases: string[][] = [
      ['trade_stake'],
      ['trade_stake', 'trade_payout', 'trade_refund'],
      ['withdrawal_hold', 'withdrawal_release'],
      ['deposit', 'adjustment'],
    ];
    for (const kinds of cases) {
      for (const perPage of [3, 10]) {
        const repeated = kinds.map((k) => `kind=${k}`).join('&');
        const { pages, entries } = await walk(repeated, perPage);
        expect(entries.map((e) => e.id)).toEqual(ledger.filter((e) => kinds.includes(e.kind)).map((e) => e.id));
        expect(pages[0]!.opening_balance).toBe(0);
        const comma = await walk(`kind=${kinds.join(',')}`, perPage);
        expect(comma.entries).toEqual(entries);
      }
    }
    // A period cut in the middle of the sequence: from (inclusive) and to (exclusive) on the posting time.
    const from = ledger[Math.floor(ledger.length / 3)]!.created_at.toISOString();
    const to = ledger[Math.floor((ledger.length * 2) / 3)]!.created_at.toISOString();
    const expected = ledger.filter(
      (e) => e.created_at.getTime() >= Date.parse(from) && e.created_at.getTime() < Date.parse(to),
    );
    expect(expected.length).toBeGreaterThan(5);
    for (const perPage of [4, 9]) {
      const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
      const { pages, entries } = await walk(q, perPage);
      expect(entries.map((e) => e.id)).toEqual(expected.map((e) => e.id));
      // Unfiltered, the opening is the real balance before the period's first entry.
      expect(cents(pages[0]!.opening_balance)).toBe(expected[0]!.balance_after - expected[0]!.amount);
      expect(cents(pages.at(-1)!.closing_balance)).toBe(expected.at(-1)!.balance_after);
    }
    // Past the last page: an empty page sits at the closing figure.
    const past = (await get(alice.token, '/api/trading/statement?page=999&per_page=200')).json() as StatementResponse;
    expect(past.entries).toEqual([]);
    expect(cents(past.opening_balance)).toBe(await balanceCents(app.t, alice.accountId));
    expect(past.closing_balance).toBe(past.opening_balance);
  });

  it("another client's entries never appear, and each client sees only their own", async () => {
    const { entries } = await walk('', 200);
    const bobIds = new Set(
      (await app.t.db.selectFrom('ledger_entries').select('id').where('account_id', '=', bob.accountId).execute()).map(
        (r) => Number(r.id),
      ),
    );
    expect(bobIds.size).toBe(2);
    for (const e of entries) expect(bobIds.has(e.id)).toBe(false);
    const bobs = (await get(bob.token, '/api/trading/statement')).json() as StatementResponse;
    expect(bobs.entries.map((e) => e.id).sort()).toEqual([...bobIds].sort());
    expect(bobs.closing_balance).toBe(778);
    const csv = (await get(alice.token, '/api/trading/statement/export?format=csv')).body;
    expect(csv).not.toContain('bob-only reason');
    // No line of Alice's file is one of Bob's entries (their ids), nor his $777 deposit.
    const rows = csv
      .slice(1)
      .trimEnd()
      .split('\r\n')
      .slice(2, -1)
      .map((line) => line.split(';'));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((cells) => bobIds.has(Number(cells[0])))).toBe(false);
    expect(rows.some((cells) => Number(cells[3]!.replace(',', '.')) === 777)).toBe(false);
  });

  it('the CSV carries the opening line, every entry with its balance, the closing line, formula-safe', async () => {
    const res = await get(alice.token, '/api/trading/statement/export?format=csv', { 'accept-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="statement-\d+-.*\.csv"$/);
    expect(res.body.startsWith('\ufeff')).toBe(true);
    const lines = res.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '#,Time (UTC),Kind,Amount USD'.replace('Amount USD', '"Amount, USD"') +
        ',"Balance after, USD",Trade,Withdrawal request,Reason',
    );
    const opening = lines[1]!.split(',');
    const closing = lines.at(-1)!.split(',');
    expect(opening[2]).toBe('Opening balance');
    expect(closing[2]).toBe('Closing balance');
    const body = lines.slice(2, -1);
    expect(body.length).toBe(ledger.length);
    let sum = cents(Number(opening[4]));
    body.forEach((line, i) => {
      const cells = line.split(',');
      expect(Number(cells[0])).toBe(ledger[i]!.id);
      sum += cents(Number(cells[3]));
      expect(cents(Number(cells[4]))).toBe(sum);
    });
    expect(sum).toBe(cents(Number(closing[4])));
    // D9: the reason starting with '=' is written with a leading apostrophe, never as a live formula.
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(res.body).not.toMatch(/(^|,)"?=HYPERLINK/m);
    // Russian by default.
    const ru = await get(alice.token, '/api/trading/statement/export?format=csv');
    expect(ru.body).toContain('Баланс на начало периода');
  });

  it('the Russian CSV uses semicolons and decimal commas, so a Russian spreadsheet reads every amount as a number (issue 27 item 18)', async () => {
    const res = await get(alice.token, '/api/trading/statement/export?format=csv');
    const lines = res.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe('№;Время (UTC);Вид;"Сумма, USD";"Баланс после, USD";Сделка;Заявка на вывод;Причина');
    const body = lines.slice(2, -1).map((line) => line.split(';'));
    expect(body.length).toBe(ledger.length);
    // Every amount is digits with at most one decimal comma: no point, no thousands separator, nothing quoted.
    for (const cells of body) {
      expect(cells[3]).toMatch(/^-?\d+(,\d{1,2})?$/);
      expect(cells[4]).toMatch(/^\d+(,\d{1,2})?$/);
    }
    expect(body.some((cells) => cells[3]!.includes(','))).toBe(true);
    // The same sums as the English file's.
    let sum = cents(Number(lines[1]!.split(';')[4]!.replace(',', '.')));
    for (const cells of body) sum += cents(Number(cells[3]!.replace(',', '.')));
    expect(sum).toBe(cents(Number(lines.at(-1)!.split(';')[4]!.replace(',', '.'))));
  });

  it("writes the times in the client's zone, named in the title: text in the CSV, date cells in the XLSX (issue 27 item 17)", async () => {
    const tz = 'Asia/Almaty';
    const wall = (at: Date) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: tz,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
        })
          .formatToParts(at)
          .map((p) => [p.type, p.value]),
      );
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
    };
    const csv = await get(alice.token, `/api/trading/statement/export?format=csv&tz=${encodeURIComponent(tz)}`, {
      'accept-language': 'en',
    });
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toContain('Time (Asia/Almaty)');
    const body = lines.slice(2, -1);
    body.forEach((line, i) => expect(line.split(',')[1]).toBe(wall(ledger[i]!.created_at)));

    const res = await get(alice.token, `/api/trading/statement/export?format=xlsx&tz=${encodeURIComponent(tz)}`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0]!;
    expect(sheet.getCell('B1').value).toBe('Время (Asia/Almaty)');
    const cell = sheet.getCell('B3');
    expect(cell.type).toBe(ExcelJS.ValueType.Date);
    // The cell shows the wall-clock time in the zone, to the second, and the header row is frozen and filtered.
    expect((cell.value as Date).toISOString().slice(0, 19).replace('T', ' ')).toBe(wall(ledger[0]!.created_at));
    expect(cell.numFmt).toBe('dd.mm.yyyy hh:mm:ss');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBe('A1:H1');
    // Read back by SheetJS as well: a date cell with its format, the amounts numbers.
    const js = XLSX.read(res.rawPayload, { cellDates: true, cellNF: true });
    const ws = js.Sheets[js.SheetNames[0]!]!;
    expect((ws.B3 as XLSX.CellObject).t).toBe('d');
    expect((ws.B3 as XLSX.CellObject).z).toBe('dd.mm.yyyy hh:mm:ss');
    expect((ws.D3 as XLSX.CellObject).t).toBe('n');
    expect((ws.E3 as XLSX.CellObject).t).toBe('n');

    const bad = await get(alice.token, '/api/trading/statement/export?format=csv&tz=Mars/Olympus', {
      'accept-language': 'en',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('Unknown time zone');
  });

  it('the XLSX, opened with exceljs, carries the same identity and every entry; the formula is a plain string', async () => {
    const res = await get(alice.token, '/api/trading/statement/export?format=xlsx', { 'accept-language': 'en' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/\.xlsx"$/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0]!;
    const rows: unknown[][] = [];
    sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    expect(rows[0]![0]).toBe('#');
    expect(rows[1]![2]).toBe('Opening balance');
    expect(rows.at(-1)![2]).toBe('Closing balance');
    const body = rows.slice(2, -1);
    expect(body.map((r) => r[0])).toEqual(ledger.map((e) => e.id));
    let sum = cents(rows[1]![4] as number);
    for (const r of body) {
      sum += cents(r[3] as number);
      expect(cents(r[4] as number)).toBe(sum);
    }
    expect(sum).toBe(cents(rows.at(-1)![4] as number));
    let formulaCell: ExcelJS.Cell | undefined;
    sheet.eachRow((row) =>
      row.eachCell((c) => {
        if (String(c.value).includes('HYPERLINK')) formulaCell = c;
      }),
    );
    expect(formulaCell!.type).toBe(ExcelJS.ValueType.String);
    expect(formulaCell!.value).toBe(FORMULA_REASON);
    expect(formulaCell!.formula).toBeUndefined();
  });

  it('a period filter with a kind filter applies to the files too', async () => {
    const res = await get(alice.token, '/api/trading/statement/export?format=csv&kind=trade_stake', {
      'accept-language': 'en',
    });
    const lines = res.body.slice(1).trimEnd().split('\r\n');
    expect(lines.length - 3).toBe(ledger.filter((e) => e.kind === 'trade_stake').length);
    expect(lines[1]).toContain('Selected kinds, total at the start');
  });

  it('bad parameters get 400 with a detail; no session gets 401', async () => {
    for (const q of [
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
      'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z',
      'kind=bonus',
      'kind=deposit,withdraw',
      'page=0',
      'per_page=201',
      'per_page=abc',
      'sort=id',
    ]) {
      const res = await get(alice.token, `/api/trading/statement?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().detail, q).toEqual(expect.any(String));
    }
    for (const q of ['format=pdf', 'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'page=1']) {
      const res = await get(alice.token, `/api/trading/statement/export?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
    const range = await get(alice.token, '/api/trading/statement?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', {
      'accept-language': 'en',
    });
    expect(range.json().detail).toBe('The start of the period must be before its end');
    expect((await app.t.inject({ method: 'GET', url: '/api/trading/statement' })).statusCode).toBe(401);
    const staffCall = await get(staff.token, '/api/trading/statement');
    expect(staffCall.statusCode).toBe(403);
  });

  it('every ledger kind is a valid filter', async () => {
    for (const k of LEDGER_KINDS)
      expect((await get(alice.token, `/api/trading/statement?kind=${k}`)).statusCode).toBe(200);
  });
});
