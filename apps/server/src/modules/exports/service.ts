import {
  can,
  centsToDollars,
  clientAffiliate,
  displayPhone,
  type ClientFilters,
  type DepositFilters,
  type Lang,
} from '@brokerage/shared';
import type { FastifyBaseLogger } from 'fastify';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { AppDeps } from '../../platform/deps.js';
import type { Actor } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import { setLocalStatementTimeout } from '../../platform/db/index.js';
import { filteredClients, type ClientRow } from '../clients/service.js';
import { DEPOSIT_COLUMNS, filteredDeposits, type DepositRow } from '../deposits/service.js';
import { EXPORT_LABELS, type ExportLabels } from './labels.js';
import { createXlsxSheetStream, type CellValue, type XlsxSheetStream } from './xlsx-stream.js';

/**
 * Excel exports (back-office.md §2.5, §2.10; decisions.md D5, D7, D9). The rows are read in keyset batches (id
 * descending, newest first, like the lists' default) and written row by row into a streaming XLSX writer, so neither
 * the database nor the server ever holds the whole result. The filters are the lists' own (filteredClients,
 * filteredDeposits), so an export holds exactly what the list shows, in the caller's scope. No card number or
 * secret exists in these tables' exported columns. Each export is written to the audit log with its filters and
 * row count once it has ended (completed or cut off by the receiver).
 */

/** Rows per database round trip: large enough to be fast, small enough to keep memory flat. */
export const EXPORT_BATCH = 2000;
/** Rows rendered between two turns of the event loop (see run()). */
const EXPORT_SLICE = 250;

export interface ExportRun {
  /** The XLSX bytes, to be sent as the reply body. */
  stream: XlsxSheetStream['stream'];
  filename: string;
  /** Resolves when every row is written (or the receiver left), after the audit row. */
  done: Promise<{ rows: number; completed: boolean }>;
  /** The receiver left before the end: stop reading, drop the stream, record the export as not completed. */
  cancel: () => void;
}

const QUARTER_HOUR = 15 * 60_000;
const DAY = 24 * 60 * 60_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/**
 * The UTC offset of `timeZone` at an instant, in ms, at a fraction of Intl's cost per row (issue 12, item 5: it was one
 * of the export's largest costs). The offset is asked of Intl once per UTC day (at its first and last minute) and
 * cached; a day whose ends disagree holds a change of offset and is cached per quarter hour instead (changes fall on
 * quarter hours of UTC: offsets are whole quarter hours), and a quarter whose ends disagree is asked of Intl per
 * minute. Null only for an instant Intl cannot format.
 */
function zoneOffsets(timeZone: string) {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  /** The zone's offset in ms at `ms` (to the minute), read back from Intl's own wall-clock text. */
  const offsetAt = (ms: number) => {
    const m = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2})$/.exec(format.format(ms));
    if (!m) return null;
    const wall = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5]));
    return wall - Math.floor(ms / 60_000) * 60_000;
  };
  /** The offset over [from, from + span), or null when its two ends disagree (it holds a change of offset). */
  const steady = (from: number, span: number) => {
    const first = offsetAt(from);
    return first !== null && first === offsetAt(from + span - 60_000) ? first : null;
  };
  /** Per UTC day seen: its offset, or (a day holding a change) a map of its quarter hours' offsets. */
  const days = new Map<number, number | Map<number, number | null>>();
  const cached = (ms: number) => {
    const day = Math.floor(ms / DAY);
    let known = days.get(day);
    if (known === undefined) {
      known = steady(day * DAY, DAY) ?? new Map();
      if (days.size > 100_000) days.clear();
      days.set(day, known);
    }
    if (typeof known === 'number') return known;
    const quarter = Math.floor(ms / QUARTER_HOUR);
    let offset = known.get(quarter);
    if (offset === undefined) known.set(quarter, (offset = steady(quarter * QUARTER_HOUR, QUARTER_HOUR)));
    return offset;
  };
  return { format, offsetOf: (ms: number) => cached(ms) ?? offsetAt(ms) };
}

/** dd.mm.yyyy hh:mm in `timeZone` (§2.5), as Intl's en-GB h23 format gives it, from the cached offsets above. */
export function dateTimeFormatter(timeZone: string) {
  const { format, offsetOf } = zoneOffsets(timeZone);
  // en-GB gives '22/11/2026, 09:05'; the back office shows dd.mm.yyyy hh:mm (§2.5).
  const slow = (ms: number) => format.format(ms).replace(/\//g, '.').replace(', ', ' ');
  return (value: Date | string | null): string | null => {
    if (value === null) return null;
    const ms = typeof value === 'string' ? Date.parse(value) : value.getTime();
    if (!Number.isFinite(ms)) return slow(new Date(value).getTime());
    const offset = offsetOf(ms);
    if (offset === null) return slow(ms);
    const local = ms + offset;
    const day = Math.floor(local / DAY);
    const minutes = Math.floor((local - day * DAY) / 60_000);
    // The civil date of a day number (days since 1970-01-01), H. Hinnant's days_to_civil.
    const z = day + 719_468;
    const era = Math.floor(z / 146_097);
    const doe = z - era * 146_097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 1000 || year > 9999) return slow(ms);
    const date = doy - Math.floor((153 * mp + 2) / 5) + 1;
    return `${TWO_DIGITS[date]}.${TWO_DIGITS[month]}.${year} ${TWO_DIGITS[Math.floor(minutes / 60)]}:${TWO_DIGITS[minutes % 60]}`;
  };
}

/**
 * A date cell's value for an instant (issue 27 item 17): a spreadsheet's date has no zone, so the cell holds the
 * wall-clock time in `timeZone` (the cell's format decides how much of it shows), written as the UTC fields of a Date (exceljs
 * turns a Date's UTC fields into the serial number). The column's title names the zone.
 */
export function wallClock(timeZone: string) {
  const { offsetOf } = zoneOffsets(timeZone);
  return (value: Date | string | null): Date | null => {
    if (value === null) return null;
    const ms = typeof value === 'string' ? Date.parse(value) : value.getTime();
    if (!Number.isFinite(ms)) return null;
    const offset = offsetOf(ms);
    if (offset === null) return null;
    return new Date(ms + offset);
  };
}

/** A column title with the zone its times are in: 'Дата создания (Europe/Kyiv)'. */
export function zoned(title: string, timeZone: string): string {
  return `${title} (${timeZone})`;
}

function today(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
}

/** A client row as the export reads it: the list's columns and the affiliate's name. */
export type ExportClientRow = Pick<
  ClientRow,
  | 'id'
  | 'name'
  | 'email'
  | 'phone'
  | 'phone_e164'
  | 'country'
  | 'status'
  | 'campaign'
  | 'source'
  | 'total_deposits_cents'
  | 'ftd'
  | 'assigned_manager'
  | 'assigned_manager_name'
  | 'last_comment_date'
  | 'created_at'
> & { affiliate_name: string | null; trading_balance_cents: string | number | null };

/** The list's columns the clients sheet shows (CLIENT_COLUMNS less notes, dates of update and registration, ids). */
const EXPORT_CLIENT_COLUMNS = [
  'clients.id',
  'clients.name',
  'clients.email',
  'clients.phone',
  'clients.phone_e164',
  'clients.country',
  'clients.status',
  'clients.campaign',
  'clients.source',
  'clients.total_deposits_cents',
  'clients.ftd',
  'clients.assigned_manager',
  'm.name as assigned_manager_name',
  'clients.last_comment_date',
  'clients.created_at',
  'ta.balance_cents as trading_balance_cents',
] as const;

/**
 * The clients sheet of the export: its name, header, widths and how a row becomes its cells (status label, dollars,
 * yes/no, the affiliate rule, date cells in the business zone, named in their titles). The deposits total and the
 * trading account's balance are two columns, each titled for what it holds (issue 27 item 17). One definition, also
 * used by bench:clients' baseline so the two write the same sheet.
 */
export function clientsSheet(lang: Lang, timeZone: string) {
  const L: ExportLabels = EXPORT_LABELS[lang];
  const when = wallClock(timeZone);
  const c = L.clients;
  const statuses = L.statuses as Record<string, string>;
  return {
    name: L.clientsSheet,
    header: [
      c.id,
      c.name,
      c.email,
      c.phone,
      c.country,
      c.status,
      c.campaign,
      c.source,
      c.affiliate,
      c.balance,
      c.tradingBalance,
      c.ftd,
      c.manager,
      zoned(c.lastComment, timeZone),
      zoned(c.createdAt, timeZone),
    ],
    widths: [10, 28, 30, 18, 16, 16, 24, 14, 18, 20, 20, 6, 22, 34, 30],
    cells: (r: ExportClientRow): CellValue[] => [
      Number(r.id),
      r.name,
      r.email,
      displayPhone(r.phone, r.phone_e164),
      r.country,
      statuses[r.status] ?? r.status,
      r.campaign,
      r.source,
      clientAffiliate(r),
      centsToDollars(r.total_deposits_cents),
      r.trading_balance_cents === null ? null : centsToDollars(r.trading_balance_cents),
      r.ftd ? L.yes : L.no,
      r.assigned_manager === null ? L.unassigned : (r.assigned_manager_name ?? ''),
      when(r.last_comment_date),
      when(r.created_at),
    ],
  };
}

/** Drops the undefined and empty filters, so the audit row shows only what was asked. */
function usedFilters(filters: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)),
  );
}

interface RunSpec<R> {
  deps: AppDeps;
  actor: Actor;
  log: FastifyBaseLogger;
  sheet: XlsxSheetStream;
  /** The next batch of rows with an id below `before` (all when null), id descending. */
  batch: (before: number | null) => Promise<R[]>;
  idOf: (row: R) => number;
  cells: (row: R) => CellValue[];
  audit: { action: 'client.export' | 'deposit.export'; entityType: string; filters: Record<string, unknown> };
}

/**
 * The batches of a list query by keyset on `id`: EXPORT_BATCH rows with an id below `before`, id descending. Each is
 * read under DB_BULK_STATEMENT_TIMEOUT_MS instead of the request bound (issue 21 §5: a filtered batch of a large base
 * may take longer than a list page).
 */
function keysetBatches<R>(
  deps: AppDeps,
  base: SelectQueryBuilder<any, any, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  id: string,
): RunSpec<R>['batch'] {
  return async (before) => {
    let q = base.orderBy(sql.ref(id), 'desc').limit(EXPORT_BATCH);
    if (before !== null) q = q.where(sql.ref(id), '<', before);
    const query = q.compile();
    return deps.db.transaction().execute(async (trx) => {
      await setLocalStatementTimeout(trx, deps.config.DB_BULK_STATEMENT_TIMEOUT_MS);
      return (await trx.executeQuery(query)).rows as R[];
    });
  };
}

function run<R>(spec: RunSpec<R>): Pick<ExportRun, 'done' | 'cancel'> {
  const { sheet } = spec;
  let gone = false;
  const cancel = () => {
    gone = true;
    sheet.abort();
  };
  const work = async () => {
    let rows = 0;
    let completed = false;
    try {
      // The next batch is asked for as soon as the current one arrives (its keyset bound is the current batch's last
      // id), so the database reads it while this one is written: one query in flight at most, two batches in memory.
      const ask = (from: number | null) => {
        const next = spec.batch(from);
        next.catch(() => {}); // awaited below; this only keeps an abandoned prefetch from being an unhandled rejection
        return next;
      };
      let next = ask(null);
      for (;;) {
        const batch = await next;
        const more = batch.length === EXPORT_BATCH;
        if (more) next = ask(spec.idOf(batch[batch.length - 1]!));
        // A few hundred rows at a time, then a turn of the event loop: the zip's deflate runs on libuv's thread pool
        // and is handed its next chunk only between turns, so it compresses while the following rows are rendered
        // (one synchronous batch would leave it idle) — and room() waits here while the receiver is behind.
        for (let i = 0; i < batch.length && !gone; i += EXPORT_SLICE) {
          const end = Math.min(batch.length, i + EXPORT_SLICE);
          for (let k = i; k < end; k++) sheet.addRow(spec.cells(batch[k]!));
          rows += end - i;
          await sheet.room();
        }
        if (!more || gone) break;
      }
      if (!gone) {
        await sheet.finish();
        completed = !gone;
      }
    } catch (err) {
      spec.log.error({ err }, 'export failed');
      sheet.abort(err instanceof Error ? err : new Error(String(err)));
    }
    try {
      await writeAudit(spec.deps.db, spec.actor, {
        action: spec.audit.action,
        entityType: spec.audit.entityType,
        after: { filters: spec.audit.filters, rows, completed },
      });
    } catch (err) {
      // Nobody awaits this promise (the reply is already streaming): a failure is logged, never left unhandled.
      spec.log.error({ err }, 'export audit row failed');
    }
    return { rows, completed };
  };
  return { done: work(), cancel };
}

/** GET /api/clients/export/excel: the clients of the list's filters in the caller's scope (D5), as XLSX. */
export async function exportClients(
  deps: AppDeps,
  actor: Actor,
  filters: ClientFilters,
  lang: Lang,
  log: FastifyBaseLogger,
): Promise<ExportRun> {
  const tz = deps.config.BUSINESS_TIMEZONE;
  const layout = clientsSheet(lang, tz);
  const sheet = createXlsxSheetStream(layout.name, layout.header, layout.widths);
  // Building the query checks the filters before the first byte is sent, so a refusal is still a clean 4xx.
  // The affiliate column: the lead's affiliate's name (kept after the affiliate is deleted), else the campaign rule.
  // Only the sheet's columns (not the list's notes, update and registration dates …): less to read, parse and hold.
  const base = filteredClients(deps, filters, actor)
    .leftJoin('affiliates as af', 'af.id', 'clients.affiliate_id')
    .leftJoin('trading_accounts as ta', 'ta.client_id', 'clients.id')
    .select([...EXPORT_CLIENT_COLUMNS, 'af.name as affiliate_name']);
  const { done, cancel } = run<ExportClientRow>({
    deps,
    actor,
    log,
    sheet,
    batch: keysetBatches<ExportClientRow>(deps, base, 'clients.id'),
    idOf: (r) => Number(r.id),
    cells: layout.cells,
    audit: { action: 'client.export', entityType: 'client', filters: usedFilters(filters) },
  });
  return { stream: sheet.stream, filename: `clients_export_${today(tz)}.xlsx`, done, cancel };
}

/** GET /api/deposits/export/excel: the deposit history of its filters in the caller's scope (D5), as XLSX. */
export async function exportDeposits(
  deps: AppDeps,
  actor: Actor,
  filters: DepositFilters,
  lang: Lang,
  log: FastifyBaseLogger,
): Promise<ExportRun> {
  const L: ExportLabels = EXPORT_LABELS[lang];
  const tz = deps.config.BUSINESS_TIMEZONE;
  const when = wallClock(tz);
  const d = L.deposits;
  // §6: the assigned-manager column of the history is the superadmin's (deposits.manager_filter).
  const withManager = can(actor.role === 'system' ? null : actor.role, 'deposits.manager_filter');
  // Checks the Manager filter's permission and a client_id's scope first: a refusal is a clean 4xx.
  const base = (await filteredDeposits({ db: deps.db, timeZone: tz }, actor, filters)).select([...DEPOSIT_COLUMNS]);
  const header = [
    d.id,
    d.clientId,
    d.client,
    d.type,
    d.amount,
    zoned(d.date, tz),
    d.creator,
    ...(withManager ? [d.manager] : []),
  ];
  const widths = [10, 12, 28, 12, 12, 26, 24, ...(withManager ? [24] : []), 40];
  const sheet = createXlsxSheetStream(L.depositsSheet, [...header, d.notes], widths);
  const { done, cancel } = run<DepositRow>({
    deps,
    actor,
    log,
    sheet,
    batch: keysetBatches<DepositRow>(deps, base, 'd.id'),
    idOf: (r) => Number(r.id),
    cells: (r) => [
      Number(r.id),
      Number(r.client_id),
      r.client_name,
      L.depositTypes[r.deposit_type] ?? r.deposit_type,
      centsToDollars(r.amount_cents),
      when(r.created_at),
      r.created_by_name || L.unknown,
      ...(withManager ? [r.assigned_manager === null ? L.unassigned : (r.assigned_manager_name ?? '')] : []),
      r.notes,
    ],
    audit: { action: 'deposit.export', entityType: 'deposit', filters: usedFilters(filters) },
  });
  return { stream: sheet.stream, filename: `deposits_export_${today(tz)}.xlsx`, done, cancel };
}
