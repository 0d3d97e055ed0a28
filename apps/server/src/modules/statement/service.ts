import {
  STATEMENT_EXPORT_MAX_ROWS,
  centsToDollars,
  formatCents,
  type LedgerKind,
  type Lang,
  type StatementEntry,
  type StatementExportQuery,
  type StatementQuery,
  type StatementResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { HttpError } from '../../platform/http/errors.js';
import { createXlsxSheetStream, type CellValue } from '../exports/xlsx-stream.js';
import { wallClock, zoned } from '../exports/service.js';

/**
 * The client's account statement (issue 14, item 3; decisions.md D3): their own trading account's ledger, read only.
 *
 * Order: ledger order, by entry id ascending (the balance chain runs by id: each entry's balance_after is the previous
 * one's plus its amount). Period: `from` inclusive, `to` exclusive, on the entry's posting time; it is taken as the
 * contiguous id range from the first entry posted at or after `from` to the last one posted before `to`, so a page of
 * an unfiltered statement is a contiguous slice of the chain and opening + Σ amounts = closing holds exactly.
 * With a kind filter the figures are the running total of the selected kinds inside the period (see the schema).
 */

interface Period {
  accountId: number;
  /** The contiguous id range of the period; null when no entry falls in it. */
  lo: number | null;
  hi: number | null;
  kinds: LedgerKind[] | undefined;
}

interface EntryRow {
  id: string | number;
  kind: LedgerKind;
  amount_cents: string | number;
  balance_after_cents: string | number;
  reference: string;
  reason: string | null;
  created_at: Date | string;
}

async function accountIdOfUser(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('trading_accounts').select('id').where('user_id', '=', userId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'trading_account_not_found');
  return Number(row.id);
}

async function resolvePeriod(
  db: Db,
  accountId: number,
  query: { from?: string | undefined; to?: string | undefined; kind?: LedgerKind[] | undefined },
): Promise<Period> {
  if (query.from && query.to && new Date(query.from).getTime() >= new Date(query.to).getTime()) {
    throw new HttpError(400, 'bad_date_range');
  }
  let loQuery = db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.min('id').as('id'))
    .where('account_id', '=', accountId);
  if (query.from) loQuery = loQuery.where('created_at', '>=', new Date(query.from));
  let hiQuery = db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('account_id', '=', accountId);
  if (query.to) hiQuery = hiQuery.where('created_at', '<', new Date(query.to));
  const [lo, hi] = await Promise.all([loQuery.executeTakeFirst(), hiQuery.executeTakeFirst()]);
  const kinds = query.kind && query.kind.length > 0 ? [...new Set(query.kind)] : undefined;
  return {
    accountId,
    lo: lo?.id == null ? null : Number(lo.id),
    hi: hi?.id == null ? null : Number(hi.id),
    kinds,
  };
}

function inPeriod(db: Db, p: Period) {
  let q = db
    .selectFrom('ledger_entries')
    .where('account_id', '=', p.accountId)
    .where('id', '>=', p.lo ?? 0)
    .where('id', '<=', p.hi ?? -1);
  if (p.kinds) q = q.where('kind', 'in', p.kinds);
  return q;
}

/** trade:<id>:stake|settle → the trade; withdrawal:<id>:hold|release → the request (the references of D3). */
export function referenceLinks(reference: string): { tradeId: number | null; withdrawRequestId: number | null } {
  const trade = /^trade:(\d+):/.exec(reference);
  const withdrawal = /^withdrawal:(\d+):/.exec(reference);
  return {
    tradeId: trade ? Number(trade[1]) : null,
    withdrawRequestId: withdrawal ? Number(withdrawal[1]) : null,
  };
}

function toEntry(r: EntryRow): StatementEntry {
  const links = referenceLinks(r.reference);
  return {
    id: Number(r.id),
    at: new Date(r.created_at).toISOString(),
    kind: r.kind,
    amount: centsToDollars(r.amount_cents),
    balance_after: centsToDollars(r.balance_after_cents),
    reason: r.reason,
    trade_id: links.tradeId,
    withdraw_request_id: links.withdrawRequestId,
  };
}

const ENTRY_COLUMNS = [
  'id',
  'kind',
  'amount_cents',
  'balance_after_cents',
  'reference',
  'reason',
  'created_at',
] as const;

/** The figure where an empty page sits: the balance after the period's last entry (unfiltered), the period's total of the selected kinds (filtered). */
async function endFigureCents(db: Db, p: Period, filteredSumCents: number): Promise<number> {
  if (p.kinds) return filteredSumCents;
  if (p.hi === null) return 0;
  const last = await db
    .selectFrom('ledger_entries')
    .select('balance_after_cents')
    .where('id', '=', p.hi)
    .executeTakeFirst();
  return last ? Number(last.balance_after_cents) : 0;
}

/** GET /api/trading/statement: one page of the client's own statement. */
export async function statement(db: Db, userId: string, query: StatementQuery): Promise<StatementResponse> {
  const accountId = await accountIdOfUser(db, userId);
  const p = await resolvePeriod(db, accountId, query);
  const offset = (query.page - 1) * query.per_page;
  const [agg, rows] = await Promise.all([
    inPeriod(db, p)
      .select((eb) => [eb.fn.countAll<string>().as('total'), sql<string>`coalesce(sum(amount_cents), 0)`.as('sum')])
      .executeTakeFirstOrThrow(),
    inPeriod(db, p).select(ENTRY_COLUMNS).orderBy('id').limit(query.per_page).offset(offset).execute(),
  ]);
  const total = Number(agg.total);
  const pageSum = rows.reduce((s, r) => s + Number(r.amount_cents), 0);
  let openingCents: number;
  if (rows.length === 0) {
    openingCents = await endFigureCents(db, p, Number(agg.sum));
  } else if (!p.kinds) {
    openingCents = Number(rows[0]!.balance_after_cents) - Number(rows[0]!.amount_cents);
  } else {
    const before = await inPeriod(db, p)
      .where('id', '<', Number(rows[0]!.id))
      .select(sql<string>`coalesce(sum(amount_cents), 0)`.as('sum'))
      .executeTakeFirstOrThrow();
    openingCents = Number(before.sum);
  }
  return {
    opening_balance: centsToDollars(openingCents),
    closing_balance: centsToDollars(openingCents + pageSum),
    total,
    entries: rows.map(toEntry),
  };
}

// ---- Files -----------------------------------------------------------------------------------------------------

const KIND_LABELS: Record<Lang, Record<LedgerKind, string>> = {
  ru: {
    deposit: 'Пополнение',
    deposit_correction: 'Корректировка пополнения',
    withdrawal_hold: 'Вывод: резерв',
    withdrawal_release: 'Вывод: возврат резерва',
    trade_stake: 'Ставка',
    trade_payout: 'Выплата',
    trade_refund: 'Возврат ставки',
    adjustment: 'Корректировка баланса',
  },
  en: {
    deposit: 'Deposit',
    deposit_correction: 'Deposit correction',
    withdrawal_hold: 'Withdrawal hold',
    withdrawal_release: 'Withdrawal release',
    trade_stake: 'Stake',
    trade_payout: 'Payout',
    trade_refund: 'Refund',
    adjustment: 'Balance adjustment',
  },
};

const FILE_TEXTS: Record<
  Lang,
  Record<'opening' | 'closing' | 'openingKinds' | 'closingKinds', string> & { header: string[] }
> = {
  ru: {
    header: ['№', 'Время', 'Вид', 'Сумма, USD', 'Баланс после, USD', 'Сделка', 'Заявка на вывод', 'Причина'],
    opening: 'Баланс на начало периода',
    closing: 'Баланс на конец периода',
    openingKinds: 'Итого выбранных видов на начало периода',
    closingKinds: 'Итого выбранных видов на конец периода',
  },
  en: {
    header: ['#', 'Time', 'Kind', 'Amount, USD', 'Balance after, USD', 'Trade', 'Withdrawal request', 'Reason'],
    opening: 'Opening balance',
    closing: 'Closing balance',
    openingKinds: 'Selected kinds, total at the start',
    closingKinds: 'Selected kinds, total at the end',
  },
};

/**
 * decisions.md D9: a text value a spreadsheet could run as a formula (= + - @, tab, carriage return first) gets a
 * leading apostrophe. Amounts are written by us as plain numbers and are not text, so they are left as numbers.
 */
export function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * Issue 27 item 18: the CSV follows the convention of the client's language, so a spreadsheet in that locale reads
 * every amount as a number: Russian (and Kazakh, whose spreadsheets share it) separate fields with a semicolon and
 * write a decimal comma; English a comma and a decimal point.
 */
export const CSV_CONVENTIONS: Record<Lang, { separator: string; decimal: string }> = {
  ru: { separator: ';', decimal: ',' },
  en: { separator: ',', decimal: '.' },
};

function csvCell(value: CellValue, decimal: string): string {
  if (value === null) return '';
  if (typeof value === 'number') return decimal === '.' ? String(value) : String(value).replace('.', decimal);
  const v = safeText(value instanceof Date ? value.toISOString() : value);
  return /[",\r\n;]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export interface StatementFile {
  fileName: string;
  contentType: string;
  body: string | NodeJS.ReadableStream;
}

/** GET /api/trading/statement/export: the whole period (not paged) as CSV or XLSX, opening and closing lines included. */
export async function exportStatement(
  db: Db,
  userId: string,
  query: StatementExportQuery,
  lang: Lang,
): Promise<StatementFile> {
  const accountId = await accountIdOfUser(db, userId);
  const p = await resolvePeriod(db, accountId, query);
  const { total } = await inPeriod(db, p)
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .executeTakeFirstOrThrow();
  if (Number(total) > STATEMENT_EXPORT_MAX_ROWS) {
    throw new HttpError(400, 'statement_too_large', { max: STATEMENT_EXPORT_MAX_ROWS, total: Number(total) });
  }
  const rows = await inPeriod(db, p).select(ENTRY_COLUMNS).orderBy('id').execute();
  const sumCents = rows.reduce((s, r) => s + Number(r.amount_cents), 0);
  const openingCents =
    rows.length === 0
      ? await endFigureCents(db, p, 0)
      : p.kinds
        ? 0
        : Number(rows[0]!.balance_after_cents) - Number(rows[0]!.amount_cents);
  const closingCents = openingCents + sumCents;

  const texts = FILE_TEXTS[lang];
  const timeZone = query.tz ?? 'UTC';
  const format = query.format;
  const cellTime = wallClock(timeZone);
  // The CSV's times: 'yyyy-mm-dd hh:mm:ss' in the zone, which spreadsheets of every locale read as a date and time.
  const textTime = (at: Date | string) => cellTime(at)?.toISOString().slice(0, 19).replace('T', ' ') ?? '';
  const header = texts.header.map((title, i) => (i === 1 ? zoned(title, timeZone) : title));
  const labels = KIND_LABELS[lang];
  const money = (cents: number | string) => Number(formatCents(cents));
  const lines: CellValue[][] = [
    [null, null, p.kinds ? texts.openingKinds : texts.opening, null, money(openingCents), null, null, null],
    ...rows.map((r) => {
      const links = referenceLinks(r.reference);
      return [
        Number(r.id),
        format === 'xlsx' ? cellTime(r.created_at) : textTime(r.created_at),
        labels[r.kind],
        money(r.amount_cents),
        money(r.balance_after_cents),
        links.tradeId,
        links.withdrawRequestId,
        r.reason,
      ];
    }),
    [null, null, p.kinds ? texts.closingKinds : texts.closing, null, money(closingCents), null, null, null],
  ];
  const stamp = (query.from ?? 'start').slice(0, 10) + '_' + (query.to ?? 'now').slice(0, 10);
  const fileName = `statement-${accountId}-${stamp.replace(/[^0-9A-Za-z_-]/g, '')}`;

  if (query.format === 'csv') {
    const { separator, decimal } = CSV_CONVENTIONS[lang];
    const csv = [header, ...lines].map((line) => line.map((v) => csvCell(v, decimal)).join(separator)).join('\r\n');
    return { fileName: `${fileName}.csv`, contentType: 'text/csv; charset=utf-8', body: `\ufeff${csv}\r\n` };
  }
  const sheet = createXlsxSheetStream(
    lang === 'ru' ? 'Выписка' : 'Statement',
    header,
    [10, 30, 28, 14, 18, 10, 16, 40],
    // A trade lasts seconds: the statement's times show them.
    { dateFormat: 'dd.mm.yyyy hh:mm:ss' },
  );
  // D9: every text value is a string cell (never a formula), shown as typed; amounts are number cells.
  void (async () => {
    try {
      for (const line of lines) {
        sheet.addRow(line);
        await sheet.room();
      }
      await sheet.finish();
    } catch (err) {
      sheet.abort(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  return {
    fileName: `${fileName}.xlsx`,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    body: sheet.stream,
  };
}
