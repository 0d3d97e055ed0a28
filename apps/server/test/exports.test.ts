import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';
import { normalisePhone } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_LABELS } from '../src/modules/exports/labels.js';
import { dateTimeFormatter, EXPORT_BATCH } from '../src/modules/exports/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const run = promisify(execFile);
const SOFFICE = '/usr/bin/soffice';

/**
 * The tests that open the files in LibreOffice need it installed (`apt-get install libreoffice-calc-nogui`; .ci/run
 * does). Without it they are skipped with a line saying so, as the PostgreSQL and browser tests are (design.md §5),
 * unless REQUIRE_OFFICE=1 (CI) makes its absence an error.
 */
const OFFICE = existsSync(SOFFICE);
if (!OFFICE && process.env.REQUIRE_OFFICE === '1')
  throw new Error(`REQUIRE_OFFICE=1 but ${SOFFICE} is missing: apt-get install libreoffice-calc-nogui`);
if (!OFFICE) console.warn(`${SOFFICE} is missing: the export tests that open the files in LibreOffice are skipped`);
const itOpensInOffice = OFFICE ? it : it.skip;

/**
 * Opens XLSX files the way a user's spreadsheet program would: LibreOffice (headless) converts each to CSV (UTF-8,
 * comma, quoted text), and the CSV is parsed back into rows of cell texts. A cell holding a formula would come out
 * as its computed value, so '=1+1' stored as a formula would read '2'.
 */
async function openInSpreadsheet(files: Record<string, Buffer>): Promise<Record<string, string[][]>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'xlsx-'));
  try {
    const inputs: string[] = [];
    for (const [name, bytes] of Object.entries(files)) {
      const file = path.join(dir, `${name}.xlsx`);
      await writeFile(file, bytes);
      inputs.push(file);
    }
    const out = path.join(dir, 'csv');
    // One LibreOffice run for every file (its start-up is the slow part), with its own profile so parallel runs
    // never share one. 44,34,76,1: comma, double quote, UTF-8, from the first line.
    await run(
      SOFFICE,
      [
        `-env:UserInstallation=file://${path.join(dir, 'profile')}`,
        '--headless',
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1',
        '--outdir',
        out,
        ...inputs,
      ],
      { timeout: 120_000 },
    );
    const result: Record<string, string[][]> = {};
    const produced = await readdir(out);
    for (const name of Object.keys(files)) {
      expect(produced, `LibreOffice did not convert ${name}`).toContain(`${name}.csv`);
      result[name] = parseCsv(await readFile(path.join(out, `${name}.csv`), 'utf8'));
    }
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows;
}

describe("the export's dates", () => {
  it('read the same wall clock as Intl in zones with clock changes, half and quarter hours, before and after 1970', () => {
    for (const zone of [
      'Europe/Kyiv',
      'America/New_York',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
    ]) {
      const intl = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const ours = dateTimeFormatter(zone);
      const wrong: string[] = [];
      // Every 7 h 13 min 17 s over 1960–2040, then every 7 minutes through 2026's spring and autumn changes.
      const instants: number[] = [];
      for (let ms = Date.UTC(1960, 0, 1); ms < Date.UTC(2040, 0, 1); ms += 26_997_000) instants.push(ms);
      for (const [from, to] of [
        [Date.UTC(2026, 2, 1), Date.UTC(2026, 3, 15)],
        [Date.UTC(2026, 8, 20), Date.UTC(2026, 10, 10)],
      ])
        for (let ms = from!; ms < to!; ms += 7 * 60_000) instants.push(ms);
      for (const ms of instants) {
        const want = intl.format(ms).replace(/\//g, '.').replace(', ', ' ');
        if (ours(new Date(ms)) !== want) wrong.push(`${new Date(ms).toISOString()} ${want}`);
      }
      expect(wrong, zone).toEqual([]);
    }
    expect(dateTimeFormatter('Europe/Kyiv')(null)).toBeNull();
    expect(dateTimeFormatter('Europe/Kyiv')('2026-03-29T01:00:00.000Z')).toBe('29.03.2026 04:00');
  });
});

describe.each(dbKinds())('Excel exports on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };
  let admin: { id: string; token: string };
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  let teamLead: { id: string; token: string };
  let salesManager: { id: string; token: string };
  const ids: Record<string, number> = {};

  async function lead(key: string, values: { name: string; status?: string; manager?: string | null; phone?: string }) {
    const row = await t.db
      .insertInto('clients')
      .values({
        name: values.name,
        email: `${key}@export.test`,
        phone: values.phone ?? '+380501112233',
        // As the import and the add-client form store it (D17).
        phone_e164: normalisePhone(values.phone ?? '+380501112233', 'KZ'),
        country: 'Украина',
        campaign: 'Autumn - PartnerX',
        source: 'import',
        notes: '',
        status: values.status ?? 'new',
        assigned_manager: values.manager ?? null,
        affiliate_id: null,
        user_id: null,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[key] = Number(row.id);
  }

  const get = (url: string, token: string) => t.inject({ method: 'GET', url, token });

  beforeAll(async () => {
    t = await createTestApp(kind);
    superadmin = await t.userWithToken('superadmin');
    admin = await t.userWithToken('admin');
    managerA = await t.userWithToken('retention_manager');
    managerB = await t.userWithToken('retention_manager');
    teamLead = await t.userWithToken('team_lead_retention');
    salesManager = await t.userWithToken('sales_manager');
    await lead('formula', { name: '=1+1', status: 'new', manager: managerA.id, phone: '+7 701 000 0000' });
    await lead('at', { name: '@SUM(A1:A2)', status: 'fake', manager: managerB.id, phone: '-5' });
    await lead('plain', { name: 'Олена Коваль', status: 'ftd', manager: managerA.id });
    await lead('free', { name: 'Free Lead', status: 'new', manager: null });
    for (const [key, amount] of [
      ['formula', 100],
      ['formula', 50.5],
      ['at', 70],
    ] as const) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/deposits',
        token: superadmin.token,
        payload: { client_id: ids[key], amount, notes: '+note' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 120_000);
  afterAll(() => t?.close());

  itOpensInOffice(
    'clients: a real XLSX with the rows of the filters, formula-like cells as text, audited with filters and count',
    async () => {
      const all = await get('/api/clients/export/excel', admin.token);
      expect(all.statusCode, all.body).toBe(200);
      expect(all.headers['content-type']).toContain('spreadsheetml');
      expect(all.headers['content-disposition']).toMatch(
        /^attachment; filename="clients_export_\d{4}-\d{2}-\d{2}\.xlsx"$/,
      );
      const byStatus = await get('/api/clients/export/excel?status=new&page=2&per_page=1&sort=name', superadmin.token);
      expect(byStatus.statusCode, byStatus.body).toBe(200);
      const english = await t.inject({
        method: 'GET',
        url: '/api/clients/export/excel?search=%D0%9E%D0%BB%D0%B5%D0%BD%D0%B0',
        token: admin.token,
        headers: { 'accept-language': 'en' },
      });
      expect(english.statusCode).toBe(200);

      const sheets = await openInSpreadsheet({
        all: all.rawPayload,
        byStatus: byStatus.rawPayload,
        english: english.rawPayload,
      });

      const [header, ...rows] = sheets.all!;
      expect(header).toEqual([
        'ID',
        'ФИО',
        'Email',
        'Телефон',
        'Страна',
        'Статус',
        'Кампания',
        'Источник',
        'Аффилейт',
        'Сумма депозитов, $',
        'Торговый баланс, $',
        'FTD',
        'Менеджер',
        'Последний комментарий (Europe/Kyiv)',
        'Дата создания (Europe/Kyiv)',
      ]);
      // Newest first, every client once.
      expect(rows.map((r) => Number(r[0]))).toEqual([ids.free, ids.plain, ids.at, ids.formula]);
      const formula = rows.find((r) => Number(r[0]) === ids.formula)!;
      expect(formula[1]).toBe('=1+1'); // the text, not 2
      expect(formula[3]).toBe('+7 701 000 0000');
      expect(formula[5]).toBe('ФТД'); // its first deposit made it ftd
      expect(formula[8]).toBe('PartnerX');
      expect(Number(formula[9])).toBe(150.5);
      expect(formula[10]).toBe(''); // a lead without a trading account has no trading balance
      expect(formula[11]).toBe('Да');
      expect(formula[14]).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}$/);
      // In the file itself: plain string cells, no formula anywhere (D9).
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(all.rawPayload as unknown as ArrayBuffer);
      const cells: ExcelJS.Cell[] = [];
      book.worksheets[0]!.eachRow((row) => row.eachCell((cell) => void cells.push(cell)));
      expect(cells.some((cell) => cell.type === ExcelJS.ValueType.Formula || cell.formula)).toBe(false);
      const formulaCell = cells.find((cell) => cell.value === '=1+1')!;
      expect(formulaCell.type).toBe(ExcelJS.ValueType.String);
      const at = rows.find((r) => Number(r[0]) === ids.at)!;
      expect(at[1]).toBe('@SUM(A1:A2)');
      expect(at[3]).toBe('-5');
      expect(rows.find((r) => Number(r[0]) === ids.free)![12]).toBe('Не назначен');
      // Issue 27 item 8: phones in one international format from their E.164 form; one that never parsed as typed.
      expect(rows.find((r) => Number(r[0]) === ids.free)![3]).toBe('+380 50 111 2233');

      // Issue 27 item 17: the dates are date cells (sortable), in the business zone, shown dd.mm.yyyy hh:mm; the
      // header row is frozen and carries an autofilter. Read back by SheetJS as a spreadsheet program would.
      const created = book.worksheets[0]!.getCell('O2');
      expect(created.type).toBe(ExcelJS.ValueType.Date);
      expect(created.numFmt).toBe('dd.mm.yyyy hh:mm');
      const js = XLSX.read(all.rawPayload, { cellDates: true, cellNF: true });
      const ws = js.Sheets[js.SheetNames[0]!]!;
      expect(ws['!autofilter']).toEqual({ ref: 'A1:O1' });
      const o2 = ws.O2 as XLSX.CellObject;
      expect(o2.t).toBe('d');
      expect(o2.z).toBe('dd.mm.yyyy hh:mm');
      const createdAt = await t.db
        .selectFrom('clients')
        .select('created_at')
        .where('id', '=', Number(rows[0]![0]))
        .executeTakeFirstOrThrow();
      // The cell's wall clock is the business zone's: the list's own formatter gives the same text.
      const shown = dateTimeFormatter('Europe/Kyiv')(new Date(createdAt.created_at));
      const cellDate = o2.v as Date;
      const pad = (n: number) => String(n).padStart(2, '0');
      expect(
        `${pad(cellDate.getUTCDate())}.${pad(cellDate.getUTCMonth() + 1)}.${cellDate.getUTCFullYear()} ` +
          `${pad(cellDate.getUTCHours())}:${pad(cellDate.getUTCMinutes())}`,
      ).toBe(shown);
      expect(rows[0]![14]).toBe(shown);
      expect((ws.J2 as XLSX.CellObject).t).toBe('n');

      // Paging and sort of the list are ignored: every 'new' client.
      expect(sheets.byStatus!.slice(1).map((r) => Number(r[0]))).toEqual([ids.free]);
      expect(sheets.english![0]![1]).toBe('Full name');
      expect(sheets.english!.slice(1).map((r) => [Number(r[0]), r[5], r[11]])).toEqual([[ids.plain, 'FTD', 'No']]);
      expect(sheets.english![0]![9]).toBe('Deposits total, $');

      // Each row is written when its stream has ended, so their order is the order the streams finished in.
      const audit = await t.auditRows('client.export');
      expect(audit).toHaveLength(3);
      const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
      expect(audit.map((a) => a.after).sort(byText)).toEqual(
        [
          { filters: {}, rows: 4, completed: true },
          { filters: { status: ['new'] }, rows: 1, completed: true },
          { filters: { search: 'Олена' }, rows: 1, completed: true },
        ].sort(byText),
      );
      // Each export is its caller's: the whole base was exported by the admin, the 'new' clients by the superadmin.
      const byFilters = (filters: object) =>
        audit.find((a) => JSON.stringify((a.after as { filters: object }).filters) === JSON.stringify(filters));
      expect(byFilters({})!.actor_id).toBe(admin.id);
      expect(byFilters({ status: ['new'] })!.actor_id).toBe(superadmin.id);
    },
    120_000,
  );

  it('clients: only superadmin and admin (D5); bad filters are a 400 naming the field, before any file', async () => {
    for (const who of [managerA, teamLead, salesManager]) {
      const res = await get('/api/clients/export/excel', who.token);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBeTruthy();
    }
    expect((await t.inject({ method: 'GET', url: '/api/clients/export/excel' })).statusCode).toBe(401);
    const bad = await get('/api/clients/export/excel?status=nope', admin.token);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('status');
    expect(await t.auditCount('client.export')).toBe(3);
  });

  itOpensInOffice(
    'deposits: the history of the caller’s scope with its filters; the manager column for superadmin; no card data',
    async () => {
      const mine = await get('/api/deposits/export/excel', managerA.token);
      expect(mine.statusCode, mine.body).toBe(200);
      expect(mine.headers['content-disposition']).toMatch(/filename="deposits_export_\d{4}-\d{2}-\d{2}\.xlsx"/);
      const everything = await get('/api/deposits/export/excel', superadmin.token);
      const reloads = await get('/api/deposits/export/excel?deposit_type=reload', superadmin.token);
      const lead = await get('/api/deposits/export/excel', teamLead.token);
      const sheets = await openInSpreadsheet({
        mine: mine.rawPayload,
        everything: everything.rawPayload,
        reloads: reloads.rawPayload,
        lead: lead.rawPayload,
      });

      // A manager gets only the deposits of their own clients, without the assigned-manager column (§6).
      expect(sheets.mine![0]).toEqual([
        'ID',
        'ID клиента',
        'Клиент',
        'Тип',
        'Сумма, $',
        'Дата (Europe/Kyiv)',
        'Создатель депозита',
        'Примечание',
      ]);
      // Issue 27 item 17, read back by SheetJS: the date a date cell in dd.mm.yyyy hh:mm, the amount a number, the
      // header filtered; the header row frozen (exceljs reads the sheet view).
      const js = XLSX.read(mine.rawPayload, { cellDates: true, cellNF: true });
      const ws = js.Sheets[js.SheetNames[0]!]!;
      expect(ws['!autofilter']).toEqual({ ref: 'A1:H1' });
      expect((ws.F2 as XLSX.CellObject).t).toBe('d');
      expect((ws.F2 as XLSX.CellObject).z).toBe('dd.mm.yyyy hh:mm');
      expect((ws.E2 as XLSX.CellObject).t).toBe('n');
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(mine.rawPayload as unknown as ArrayBuffer);
      expect(book.worksheets[0]!.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      const mineRows = sheets.mine!.slice(1);
      expect(mineRows.map((r) => [Number(r[1]), r[2], r[3], Number(r[4]), r[7]])).toEqual([
        [ids.formula, '=1+1', 'Повторный', 50.5, '+note'],
        [ids.formula, '=1+1', 'FTD', 100, '+note'],
      ]);

      expect(sheets.everything![0]).toContain('Назначенный менеджер');
      expect(sheets.everything!.slice(1).map((r) => Number(r[1]))).toEqual([ids.at, ids.formula, ids.formula]);
      expect(sheets.reloads!.slice(1).map((r) => Number(r[4]))).toEqual([50.5]);
      // The retention team lead sees the clients of retention staff and unassigned ones: all three deposits here.
      expect(sheets.lead!.slice(1)).toHaveLength(3);
      const text = JSON.stringify(sheets);
      expect(text).not.toMatch(/\d{4} ?\d{4} ?\d{4} ?\d{4}/);

      // One row per export, written when its stream ended (so in the order the streams finished).
      const audit = await t.auditRows('deposit.export');
      expect(audit.map((a) => (a.after as { rows: number }).rows).sort()).toEqual([1, 2, 3, 3]);
      expect(audit.find((a) => (a.after as { rows: number }).rows === 1)!.after).toMatchObject({
        filters: { deposit_type: ['reload'] },
      });

      // Sales roles have no History (§6); the Manager filter is the superadmin's.
      expect((await get('/api/deposits/export/excel', salesManager.token)).statusCode).toBe(403);
      const managerFilter = await get(`/api/deposits/export/excel?created_by=${superadmin.id}`, admin.token);
      expect(managerFilter.statusCode).toBe(403);
    },
    120_000,
  );

  itOpensInOffice(
    'a few thousand leads over several batches: every row once, newest first, every cell as the lead holds it',
    async () => {
      // More than two database batches, with every kind of value the sheet converts: each status, an assigned and an
      // unassigned manager, a campaign with and without an affiliate, balances, FTD yes/no, formula-like names, no last
      // comment, and creation dates across Kyiv's spring clock change (2026-03-29 01:00 UTC).
      const n = 2 * EXPORT_BATCH + 321;
      const statuses = Object.keys(EXPORT_LABELS.ru.statuses);
      await sql`insert into clients (name, email, phone, country, campaign, source, notes, status, assigned_manager, ftd,
        total_deposits_cents, created_at, last_comment_date)
      select case when g % 97 = 0 then '=' || g || '+1' else 'Bulk ' || g end,
        'bulk' || g || '@export.test', '+1555' || g, case when g % 2 = 0 then 'Germany' else 'Україна' end,
        case when g % 2 = 0 then 'Spring - Partner' || (g % 5) else 'Organic' end, 'bulkcheck', 'secret note ' || g,
        (${statuses}::text[])[1 + g % ${statuses.length}],
        case g % 3 when 0 then ${managerA.id}::uuid when 1 then null else ${managerB.id}::uuid end, g % 4 = 0,
        (g * 37) % 100000, timestamptz '2026-03-28 00:00:00+00' + g * interval '47 seconds',
        case when g % 2 = 0 then timestamptz '2026-03-29 00:59:00+00' + g * interval '1 minute' end
      from generate_series(1, ${n}) g`.execute(t.db);
      const res = await get('/api/clients/export/excel?source=bulkcheck', admin.token);
      expect(res.statusCode).toBe(200);

      // What each row must show, from the database, formatted here independently of the export's code.
      const wall = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Kyiv', // the business zone of the test config
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const when = (d: Date | string | null) =>
        d === null ? null : wall.format(new Date(d)).replace(/\//g, '.').replace(', ', ' ');
      // A date cell holds the zone's wall clock as its (zone-less) value: the same fields, to the second.
      const cellOf = (d: Date | string | null) => {
        if (d === null) return null;
        const m = /^(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2})$/.exec(when(d)!)!;
        const seconds = new Date(d).getUTCSeconds();
        return new Date(Date.UTC(+m[3]!, +m[2]! - 1, +m[1]!, +m[4]!, +m[5]!, seconds));
      };
      const leads = await t.db
        .selectFrom('clients')
        .leftJoin('users as m', 'm.id', 'clients.assigned_manager')
        .select([
          'clients.id',
          'clients.name',
          'clients.email',
          'clients.phone',
          'clients.country',
          'clients.status',
          'clients.campaign',
          'clients.source',
          'clients.total_deposits_cents',
          'clients.ftd',
          'clients.assigned_manager',
          'm.name as manager_name',
          'clients.last_comment_date',
          'clients.created_at',
        ])
        .where('clients.source', '=', 'bulkcheck')
        .orderBy('clients.id', 'desc')
        .execute();
      expect(leads).toHaveLength(n);
      const labels = EXPORT_LABELS.ru.statuses as Record<string, string>;
      const expected = leads.map((c) => [
        Number(c.id),
        c.name,
        c.email,
        c.phone,
        c.country,
        labels[c.status],
        c.campaign,
        'bulkcheck',
        c.campaign === 'Organic' ? null : c.campaign.slice('Spring - '.length),
        Number(c.total_deposits_cents) / 100,
        null, // no trading account
        c.ftd ? 'Да' : 'Нет',
        c.assigned_manager === null ? 'Не назначен' : c.manager_name,
        cellOf(c.last_comment_date),
        cellOf(c.created_at),
      ]);
      // The spread of the data really is what this test claims to cover.
      expect(new Set(expected.map((r) => r[5])).size).toBe(statuses.length);
      const created = leads.map((c) => String(when(c.created_at)));
      expect(created.some((d) => d.startsWith('29.03.2026 02:'))).toBe(true);
      expect(created.some((d) => d.startsWith('29.03.2026 04:'))).toBe(true);
      expect(created.some((d) => d.startsWith('29.03.2026 03:'))).toBe(false); // the hour the clocks skip

      // Read by exceljs: the typed value of every cell.
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = book.worksheets[0]!;
      expect(sheet.name).toBe('Клиенты');
      expect(sheet.rowCount).toBe(n + 1);
      const actual: unknown[][] = [];
      sheet.eachRow((row, number) => {
        if (number > 1) actual.push(Array.from({ length: 15 }, (_, i) => row.getCell(i + 1).value ?? null));
      });
      expect(actual).toEqual(expected);

      // Opened as a user would (LibreOffice): the same rows, the formula-like names as their text.
      const { bulk } = await openInSpreadsheet({ bulk: res.rawPayload });
      const rows = bulk!.slice(1);
      // The date cells show the zone's wall clock to the minute, as the list does (and sort as dates).
      expect(rows.map((r) => [Number(r[0]), r[1], r[14]])).toEqual(
        leads.map((c) => [Number(c.id), c.name, when(c.created_at)]),
      );
      const list = await get('/api/clients?source=bulkcheck&per_page=1', admin.token);
      expect(list.json().total).toBe(n);
      // The audit row is written once the stream has ended.
      await expect
        .poll(async () => (await t.auditRows('client.export')).map((a) => a.after))
        .toContainEqual({ filters: { source: 'bulkcheck' }, rows: n, completed: true });
    },
    180_000,
  );

  it('a receiver that leaves mid-file: the export stops, is audited as not completed, and the server keeps answering', async () => {
    const n = 20_000;
    await sql`insert into clients (name, email, phone, country, campaign, source, notes, status)
      select 'Leaver ' || g, 'leaver' || g || '@export.test', '+1666' || g, 'Germany', 'Organic', 'leaver', '', 'new'
      from generate_series(1, ${n}) g`.execute(t.db);
    // Over a real socket (inject cannot hang up): read the first bytes, then close the connection.
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const first = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: '/api/clients/export/excel?source=leaver',
          headers: { authorization: `Bearer ${admin.token}` },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            resolve({ status: res.statusCode ?? 0, bytes: chunk.length });
            req.destroy();
          });
        },
      );
      req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    });
    expect(first.status).toBe(200);
    expect(first.bytes).toBeGreaterThan(0);

    const leaver = async () =>
      (await t.auditRows('client.export'))
        .map((a) => a.after as { filters: { source?: string }; rows: number; completed: boolean })
        .find((a) => a.filters.source === 'leaver');
    await expect.poll(leaver, { timeout: 30_000 }).toBeDefined();
    const audit = (await leaver())!;
    expect(audit.completed).toBe(false);
    expect(audit.rows).toBeLessThan(n);
    // The server still answers.
    const list = await get('/api/clients?source=leaver&per_page=1', admin.token);
    expect(list.statusCode).toBe(200);
    expect(list.json().items[0].name).toBe(`Leaver ${n}`);
  }, 180_000);
});
