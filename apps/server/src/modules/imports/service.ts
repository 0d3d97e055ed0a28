import {
  LEAD_IMPORT_REJECTED_KEPT,
  LEAD_IMPORT_REJECTED_SHOWN,
  LEAD_IMPORT_REJECTED_TTL_HOURS,
  type Lang,
  type UploadClientsResult,
} from '@brokerage/shared';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/actor.js';
import { writeAudit } from '../../platform/audit/audit.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/db/types.js';
import { LeadCollector, readLeads, Upload } from './parse/index.js';
import type { UploadFileStream } from './parse/upload.js';
import type { InvalidRow, LeadCells, RowReason } from './parse/rows.js';
import { rejectedCsv } from './rejected-csv.js';
import { lockLeadCreation } from '../clients/duplicates.js';
import { reasonText, resultMessage } from './texts.js';
import { setLocalStatementTimeout } from '../../platform/db/index.js';

/** Rows per staging statement (eight arrays of this many values as parameters). */
const STAGE_BATCH = 20_000;

export interface UploadedFile {
  stream: UploadFileStream;
  name: string;
  mimeType: string;
}

export const rejectedCsvPath = (id: string) => `/api/upload-clients/${id}/rejected.csv`;

/**
 * POST /api/upload-clients (back-office.md §2.11, §3 'Upload result'; issue 10; decisions.md D13, D17). A CSV is
 * parsed while it arrives (csv-parse), a workbook once it is in (parse/xlsx.ts, SheetJS for legacy XLS), within the
 * bounds of issue 20 (rows, unpacked bytes, the event loop's turns; see parse/); each row is checked in memory (a
 * required field missing, a malformed e-mail, a phone libphonenumber-js cannot parse → skipped_incomplete).
 * The rows that pass are then, in one transaction: staged into a temporary table (unnest of arrays, a few statements
 * for any size, on PostgreSQL and PGlite alike), compared under LEAD_CREATION_LOCK (clients/duplicates.ts) with the base and with earlier rows
 * of the file by SQL (the rule of findLeadByContact: e-mail case-insensitive or E.164 phone), and inserted as new
 * leads (status new, source 'import' or the file's Source, the file's campaign, no manager) in one statement; the
 * import's row with its first LEAD_IMPORT_REJECTED_KEPT rejected rows as CSV (downloadable for 24 h) and one audit
 * row commit with them.
 */
export async function importLeads(
  deps: AppDeps,
  file: UploadedFile,
  actor: Actor,
  lang: Lang,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
): Promise<UploadClientsResult> {
  // The name is the client's (RFC 5987 lets it carry any code point): control characters (U+0000 cannot be stored
  // in PostgreSQL text) are dropped and the length bounded before it is shown, stored or audited.
  const fileName = file.name.replace(/\p{Cc}/gu, '').slice(0, 255);
  const upload = new Upload(file.stream, fileName, file.mimeType, deps.config.UPLOAD_MAX_MB);
  const collector = new LeadCollector(deps.config.DEFAULT_PHONE_REGION);
  try {
    await readLeads(upload, collector, { maxUnpackedMb: deps.config.IMPORT_MAX_UNPACKED_MB }, log);
  } finally {
    upload.release();
  }

  return deps.db.transaction().execute(async (trx) => {
    await setLocalStatementTimeout(trx, deps.config.DB_BULK_STATEMENT_TIMEOUT_MS); // a whole file's statements
    const stored = await storeLeads(trx, collector);
    // Both lists hold the first LEAD_IMPORT_REJECTED_KEPT rows of their kind, so the first that many of the two
    // merged are the file's first rejected rows.
    const rejected = mergeByRow(collector.invalid, stored.duplicates)
      .slice(0, LEAD_IMPORT_REJECTED_KEPT)
      .map((r) => ({ row: r.row, reason: reasonText(r.reason, lang), cells: r.cells }));
    const total = collector.total;
    const created = stored.created;
    const skipped = collector.invalidCount;
    const duplicates = stored.duplicatesFound;
    const omitted = skipped + duplicates - rejected.length;
    const campaign = collector.hasCampaignColumn ? stored.campaign : null;

    // Rejected rows are kept for a day: older ones are emptied here, by the next import.
    await trx
      .updateTable('lead_imports')
      .set({ rejected_csv: '' })
      .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${LEAD_IMPORT_REJECTED_TTL_HOURS}::int)`)
      .where('rejected_csv', '!=', '')
      .execute();
    const { id } = await trx
      .insertInto('lead_imports')
      .values({
        created_by: actor.id,
        file_name: fileName,
        total_processed: total,
        clients_created: created,
        duplicates_found: duplicates,
        skipped_incomplete: skipped,
        rejected_csv: rejected.length > 0 ? rejectedCsv(rejected) : '',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeAudit(trx, actor, {
      action: 'client.import',
      entityType: 'lead_import',
      entityId: id,
      after: {
        file_name: fileName,
        total_processed: total,
        clients_created: created,
        duplicates_found: duplicates,
        skipped_incomplete: skipped,
        campaign,
      },
    });

    return {
      message: resultMessage(lang, created, total),
      total_processed: total,
      clients_created: created,
      duplicates_found: duplicates,
      skipped_incomplete: skipped,
      details: { campaign },
      rejected: rejected.slice(0, LEAD_IMPORT_REJECTED_SHOWN).map(({ row, reason }) => ({ row, reason })),
      rejected_csv: rejected.length > 0 ? rejectedCsvPath(id) : null,
      rejected_csv_omitted: omitted,
    };
  });
}

interface Stored {
  created: number;
  /** The first LEAD_IMPORT_REJECTED_KEPT duplicates, in file order. */
  duplicates: InvalidRow[];
  duplicatesFound: number;
  campaign: string | null;
}

type DuplicateRow = LeadCells & { rn: number; reason: string; ref_row: number | null };

/** Stage, dedupe and insert, in the caller's transaction. */
async function storeLeads(trx: Trx, collector: LeadCollector): Promise<Stored> {
  const v = collector.valid;
  if (v.row.length === 0) return { created: 0, duplicates: [], duplicatesFound: 0, campaign: null };
  await sql`create temp table lead_import_rows (
      rn integer not null, name text not null, email text not null, phone text not null, phone_e164 text not null,
      country text not null, campaign text not null, source text not null, reason text, ref_row integer
    ) on commit drop`.execute(trx);
  for (let from = 0; from < v.row.length; from += STAGE_BATCH) {
    const to = Math.min(v.row.length, from + STAGE_BATCH);
    const part = <T>(a: T[]) => a.slice(from, to);
    await sql`insert into lead_import_rows (rn, name, email, phone, phone_e164, country, campaign, source)
      select * from unnest(${part(v.row)}::integer[], ${part(v.name)}::text[], ${part(v.email)}::text[],
        ${part(v.phone)}::text[], ${part(v.phoneE164)}::text[], ${part(v.country)}::text[],
        ${part(v.campaign)}::text[], ${part(v.source)}::text[])`.execute(trx);
  }
  // Temporary tables are never analysed by autovacuum; the planner needs the row count to pick hash joins.
  await sql`analyze lead_import_rows`.execute(trx);

  await lockLeadCreation(trx);

  // Duplicates (findLeadByContact's rule, set-based): the base first, then an earlier row of this file.
  await sql`update lead_import_rows s set reason = v.reason, ref_row = v.ref_row
    from (
      select w.rn,
        case
          when w.email_in_base then 'duplicate_email_base'
          when w.phone_in_base then 'duplicate_phone_base'
          when w.first_email < w.rn then 'duplicate_email_row'
          when w.first_phone < w.rn then 'duplicate_phone_row'
        end as reason,
        case
          when w.email_in_base or w.phone_in_base then null
          when w.first_email < w.rn then w.first_email
          when w.first_phone < w.rn then w.first_phone
        end as ref_row
      from (
        select r.rn,
          exists (select 1 from clients c where lower(c.email) = lower(r.email)) as email_in_base,
          exists (select 1 from clients c where c.phone_e164 = r.phone_e164) as phone_in_base,
          min(r.rn) over (partition by lower(r.email)) as first_email,
          min(r.rn) over (partition by r.phone_e164) as first_phone
        from lead_import_rows r
      ) w
    ) v
    where s.rn = v.rn and v.reason is not null`.execute(trx);

  const inserted = await sql<{ n: string | number }>`
    with created as (
      insert into clients (name, email, phone, phone_e164, country, campaign, source, status)
      select name, lower(email), phone, phone_e164, country, campaign, coalesce(nullif(source, ''), 'import'), 'new'
      from lead_import_rows where reason is null order by rn
      returning 1
    )
    select count(*) as n from created`.execute(trx);

  const campaigns = await sql<{ campaign: string; kinds: string | number }>`
    select campaign, count(*) over () as kinds from (
      select campaign, count(*) as n from lead_import_rows where reason is null and campaign <> '' group by campaign
    ) g
    order by n desc, campaign
    limit 5`.execute(trx);

  const duplicates = await sql<DuplicateRow>`
    select rn, reason, ref_row, name, email, phone, country, campaign, source
    from lead_import_rows where reason is not null order by rn limit ${LEAD_IMPORT_REJECTED_KEPT}`.execute(trx);
  const found = await sql<{ n: string | number }>`
    select count(*) as n from lead_import_rows where reason is not null`.execute(trx);

  return {
    created: Number(inserted.rows[0]?.n ?? 0),
    duplicatesFound: Number(found.rows[0]?.n ?? 0),
    duplicates: duplicates.rows.map((d) => ({
      row: d.rn,
      reason: duplicateReason(d.reason, d.ref_row),
      cells: {
        name: d.name,
        email: d.email,
        phone: d.phone,
        country: d.country,
        campaign: d.campaign,
        source: d.source,
      },
    })),
    campaign: campaignSummary(campaigns.rows),
  };
}

function duplicateReason(code: string, row: number | null): RowReason {
  switch (code) {
    case 'duplicate_email_row':
    case 'duplicate_phone_row':
      return { code, row: row! };
    case 'duplicate_phone_base':
      return { code };
    default:
      return { code: 'duplicate_email_base' };
  }
}

/** The campaign of the created leads: one name, or the most frequent ones with how many more there are. */
function campaignSummary(rows: { campaign: string; kinds: string | number }[]): string | null {
  if (rows.length === 0) return null;
  const kinds = Number(rows[0]!.kinds);
  const names = rows.map((r) => r.campaign).join(', ');
  return kinds > rows.length ? `${names} (+${kinds - rows.length})` : names;
}

/** Two lists in row order merged into one. */
function mergeByRow(a: InvalidRow[], b: InvalidRow[]): InvalidRow[] {
  const out: InvalidRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.row < b[j]!.row)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** GET /api/upload-clients/:id/rejected.csv: the rejected rows of an import of the last 24 hours, else 404. */
export async function rejectedRowsCsv(deps: AppDeps, id: string): Promise<{ csv: string; fileName: string }> {
  const row = await deps.db
    .selectFrom('lead_imports')
    .select(['rejected_csv', 'created_at'])
    .where('id', '=', id)
    .where('created_at', '>=', sql<Date>`now() - make_interval(hours => ${LEAD_IMPORT_REJECTED_TTL_HOURS}::int)`)
    .where('rejected_csv', '!=', '')
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'upload_rejected_not_found', { hours: LEAD_IMPORT_REJECTED_TTL_HOURS });
  const day = new Date(row.created_at).toISOString().slice(0, 10);
  return { csv: row.rejected_csv, fileName: `clients_rejected_${day}_${id.slice(0, 8)}.csv` };
}
