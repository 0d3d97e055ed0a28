import { randomBytes } from 'node:crypto';
import { departmentOfRole, type StaffRole } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../platform/db/index.js';
import { hashPassword } from '../platform/auth/passwords.js';
import { KK_FEMALE, KK_MALE, type Pair } from './lead-pool.js';

/**
 * The bulk lead generator behind `npm run seed:bulk` (issue 4, for the million-lead benchmark). Everything is set-based
 * SQL: each chunk of leads is one INSERT … SELECT over generate_series, every field a deterministic pseudo-random
 * function of the lead's id (hashint8extended with a per-field salt), so the same ids always give the same base.
 *
 * Money stays inside the rules (decisions.md D3): the generated leads have no client user and no trading account, so
 * their deposits are recorded CRM deposits that are not credited yet (credited_at null) — exactly what the deposits
 * service stores for such a client, and what creditPendingDeposits posts to the ledger if the lead is registered
 * later. No ledger entry and no balance is written, so reconcile-ledger is untouched. Per client, exactly the
 * earliest deposit is 'ftd' and ftd / total_deposits_cents are the live deposits', as the deposits service keeps them.
 */

export interface BulkSeedOptions {
  clients: number;
  /** Share of the leads that have deposits (0–1). */
  depositShare?: number;
  /** created_at is spread over this many days back from now. */
  spanDays?: number;
  /** Leads per INSERT (and per transaction). */
  chunk?: number;
  /** Allow adding to a base that already has clients. */
  append?: boolean;
  progress?: (line: string) => void;
}

export interface BulkSeedResult {
  clients: number;
  deposits: number;
  comments: number;
  staff: number;
  firstId: number;
  lastId: number;
  seconds: number;
}

// ---------------------------------------------------------------- the vocabulary (Cyrillic with its transliteration)

const RU_MALE: Pair[] = [
  ['Александр', 'aleksandr'],
  ['Дмитрий', 'dmitry'],
  ['Максим', 'maksim'],
  ['Сергей', 'sergey'],
  ['Андрей', 'andrey'],
  ['Алексей', 'aleksey'],
  ['Артём', 'artem'],
  ['Илья', 'ilya'],
  ['Кирилл', 'kirill'],
  ['Михаил', 'mikhail'],
  ['Никита', 'nikita'],
  ['Иван', 'ivan'],
  ['Евгений', 'evgeny'],
  ['Павел', 'pavel'],
  ['Владимир', 'vladimir'],
  ['Олег', 'oleg'],
  ['Роман', 'roman'],
  ['Виктор', 'viktor'],
  ['Константин', 'konstantin'],
  ['Юрий', 'yury'],
];
const RU_FEMALE: Pair[] = [
  ['Анна', 'anna'],
  ['Мария', 'maria'],
  ['Елена', 'elena'],
  ['Ольга', 'olga'],
  ['Наталья', 'natalia'],
  ['Екатерина', 'ekaterina'],
  ['Татьяна', 'tatiana'],
  ['Ирина', 'irina'],
  ['Светлана', 'svetlana'],
  ['Юлия', 'yulia'],
  ['Анастасия', 'anastasia'],
  ['Дарья', 'daria'],
  ['Марина', 'marina'],
  ['Ксения', 'ksenia'],
  ['Виктория', 'viktoria'],
  ['Полина', 'polina'],
];
/** Surnames in their male form; the female form adds 'а' ('ova', 'eva', 'ina'). */
const RU_SURNAMES: Pair[] = [
  ['Иванов', 'ivanov'],
  ['Смирнов', 'smirnov'],
  ['Кузнецов', 'kuznetsov'],
  ['Попов', 'popov'],
  ['Васильев', 'vasiliev'],
  ['Петров', 'petrov'],
  ['Соколов', 'sokolov'],
  ['Михайлов', 'mikhailov'],
  ['Новиков', 'novikov'],
  ['Фёдоров', 'fedorov'],
  ['Морозов', 'morozov'],
  ['Волков', 'volkov'],
  ['Алексеев', 'alekseev'],
  ['Лебедев', 'lebedev'],
  ['Семёнов', 'semenov'],
  ['Егоров', 'egorov'],
  ['Павлов', 'pavlov'],
  ['Козлов', 'kozlov'],
  ['Степанов', 'stepanov'],
  ['Николаев', 'nikolaev'],
  ['Орлов', 'orlov'],
  ['Андреев', 'andreev'],
  ['Макаров', 'makarov'],
  ['Никитин', 'nikitin'],
  ['Захаров', 'zakharov'],
];
const KK_SURNAMES: Pair[] = [
  ['Нурланов', 'nurlanov'],
  ['Ахметов', 'akhmetov'],
  ['Сейтқалиев', 'seitkaliev'],
  ['Жумабаев', 'zhumabaev'],
  ['Искаков', 'iskakov'],
  ['Омаров', 'omarov'],
  ['Абенов', 'abenov'],
  ['Тулеуов', 'tuleuov'],
  ['Касымов', 'kasymov'],
  ['Бекмұхамбетов', 'bekmukhambetov'],
  ['Сарсенбаев', 'sarsenbaev'],
  ['Оспанов', 'ospanov'],
];
const EN_MALE = [
  'James',
  'John',
  'Robert',
  'Michael',
  'William',
  'David',
  'Thomas',
  'Daniel',
  'Oliver',
  'Harry',
  'Jack',
  'George',
  'Lukas',
  'Felix',
  'Noah',
  'Liam',
  'Ethan',
  'Samuel',
];
const EN_FEMALE = [
  'Mary',
  'Emma',
  'Olivia',
  'Sophie',
  'Emily',
  'Charlotte',
  'Amelia',
  'Hannah',
  'Lena',
  'Mia',
  'Grace',
  'Chloe',
  'Laura',
  'Sarah',
  'Jessica',
];
const EN_SURNAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Taylor',
  'Anderson',
  'Thomas',
  'Moore',
  'Walker',
  'Evans',
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  "O'Brien",
  'Murphy',
  'Campbell',
];

/** Weighted by repetition. The phone plan of each country is in phoneSql. */
const COUNTRIES_RU = [...rep('Russia', 15), 'Ukraine', 'Ukraine', 'Belarus', 'Belarus', 'Uzbekistan', 'Kyrgyzstan'];
const COUNTRIES_EN = [
  ...rep('United Kingdom', 4),
  ...rep('Germany', 3),
  ...rep('United States', 2),
  'Canada',
  'Australia',
  'Ireland',
  'Austria',
];
const COUNTRIES_KK = [...rep('Kazakhstan', 19), 'Russia'];

const DOMAINS_RU = ['mail.ru', 'yandex.ru', 'gmail.com', 'bk.ru', 'list.ru', 'inbox.ru', 'rambler.ru'];
const DOMAINS_EN = ['gmail.com', 'outlook.com', 'yahoo.com', 'hotmail.co.uk', 'icloud.com', 'gmx.de', 'web.de'];
const DOMAINS_KK = ['mail.ru', 'gmail.com', 'inbox.kz', 'yandex.kz', 'bk.ru'];

const CAMPAIGNS_RU = [
  'RU_Google_Search_Forex',
  'RU_Yandex_Direct_Crypto',
  'RU_VK_Target_Stocks',
  'RU_Telegram_Ads',
  'RU_Lookalike_FTD',
  'RU_Webinar_Oct',
  'CIS_Retarget_Q3',
];
const CAMPAIGNS_EN = [
  'UK_Google_Search_Stocks',
  'DE_Facebook_Crypto',
  'EU_Lookalike_FTD',
  'US_TikTok_Options',
  'EU_Retarget_Q3',
  'UK_Webinar_Nov',
];
const CAMPAIGNS_KK = [
  'KZ_Instagram_Forex',
  'KZ_Google_Search',
  'KZ_Telegram_Crypto',
  'KZ_Lookalike_FTD',
  'CIS_Retarget_Q3',
];
const SOURCES = [
  ...rep('facebook', 5),
  ...rep('google', 5),
  'instagram',
  'instagram',
  'tiktok',
  'telegram',
  'youtube',
  'organic',
  'organic',
  'email',
  'partner:leadhub',
  'partner:alpha-media',
  'partner:cpa-network',
];

/** Statuses of back-office.md §4 weighted for leads without and with deposits. */
const STATUS_NO_DEPOSIT = [
  ...rep('new', 35),
  ...rep('in_progress', 15),
  ...rep('potential', 8),
  ...rep('not_potential', 8),
  ...rep('not_interested', 12),
  ...rep('no_russian', 4),
  ...rep('under_18', 2),
  ...rep('replace', 3),
  ...rep('duplicate', 5),
  ...rep('fake', 5),
];
const STATUS_DEPOSIT = [...rep('ftd', 14), ...rep('in_progress', 3), ...rep('potential', 2), 'not_interested'];

const COMMENTS = [
  'Не берёт трубку, перезвонить завтра',
  'Интересуется криптовалютой, отправил презентацию',
  'Просит перезвонить после 18:00',
  'Call back next week, interested in stocks',
  'Сделал первый депозит, доволен',
  'Хочет обучение перед торговлей',
  'Wrong number',
  'Сұрақтары бар, ертең хабарласу',
  'Готов пополнить счёт',
  'Not interested at the moment',
];

/** The staff the leads are assigned to: a few dozen people of the manager roles. */
const STAFF_PLAN: [StaffRole, number][] = [
  ['team_lead_sales', 3],
  ['team_lead_retention', 3],
  ['sales_manager', 20],
  ['retention_manager', 12],
];
const STAFF_NAMES: Pair[] = [...RU_MALE.slice(0, 10), ...RU_FEMALE.slice(0, 10)];

function rep<T>(value: T, n: number): T[] {
  return Array.from({ length: n }, () => value);
}

// ---------------------------------------------------------------- SQL helpers (constants only, never user input)

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const arr = (items: readonly string[]) => `(array[${items.map(lit).join(',')}]::text[])`;
/** A non-negative pseudo-random bigint, a function of the id and the salt only. */
const h = (id: string, salt: number) => `(hashint8extended((${id})::bigint, ${salt}) & 9223372036854775807)`;
/** One element of the list, picked by h(id, salt). */
const pick = (items: readonly string[], id: string, salt: number) =>
  `${arr(items)}[1 + ${h(id, salt)} % ${items.length}]`;
const firsts = (pairs: readonly Pair[]) => pairs.map((p) => p[0]);
const lats = (pairs: readonly Pair[]) => pairs.map((p) => p[1]);

/** lang: 0–4 Russian, 5–7 English, 8–9 Kazakh (one of ten, by the id). */
const LANG = (id: string) => `(${h(id, 1)} % 10)`;
const byLang = (id: string, ru: string, en: string, kk: string) =>
  `(case when ${LANG(id)} < 5 then ${ru} when ${LANG(id)} < 8 then ${en} else ${kk} end)`;
const FEMALE = (id: string) => `(${h(id, 2)} % 2 = 1)`;

function nameParts(id: string): { first: string; last: string; firstLat: string; lastLat: string } {
  const ruFirst = `(case when ${FEMALE(id)} then ${pick(firsts(RU_FEMALE), id, 3)} else ${pick(firsts(RU_MALE), id, 3)} end)`;
  const ruFirstLat = `(case when ${FEMALE(id)} then ${pick(lats(RU_FEMALE), id, 3)} else ${pick(lats(RU_MALE), id, 3)} end)`;
  const kkFirst = `(case when ${FEMALE(id)} then ${pick(firsts(KK_FEMALE), id, 3)} else ${pick(firsts(KK_MALE), id, 3)} end)`;
  const kkFirstLat = `(case when ${FEMALE(id)} then ${pick(lats(KK_FEMALE), id, 3)} else ${pick(lats(KK_MALE), id, 3)} end)`;
  const enFirst = `(case when ${FEMALE(id)} then ${pick(EN_FEMALE, id, 3)} else ${pick(EN_MALE, id, 3)} end)`;
  const fem = (s: string) => `(${s} || case when ${FEMALE(id)} then 'а' else '' end)`;
  const femLat = (s: string) => `(${s} || case when ${FEMALE(id)} then 'a' else '' end)`;
  return {
    first: byLang(id, ruFirst, enFirst, kkFirst),
    firstLat: byLang(id, ruFirstLat, `lower(${enFirst})`, kkFirstLat),
    last: byLang(
      id,
      fem(pick(firsts(RU_SURNAMES), id, 4)),
      pick(EN_SURNAMES, id, 4),
      fem(pick(firsts(KK_SURNAMES), id, 4)),
    ),
    lastLat: byLang(
      id,
      femLat(pick(lats(RU_SURNAMES), id, 4)),
      `translate(lower(${pick(EN_SURNAMES, id, 4)}), 'ü''', 'u')`,
      femLat(pick(lats(KK_SURNAMES), id, 4)),
    ),
  };
}

/** Digits of length n from h(id, salt). */
const digits = (id: string, salt: number, n: number) => `lpad((${h(id, salt)} % ${10 ** n})::text, ${n}, '0')`;

/** A phone in the country's plan, written compact ('+79161234567') or, for +7, often as '+7 (916) 123-45-67'. */
function phoneSql(id: string, country: string): string {
  const d7 = digits(id, 11, 7);
  const code3 = (prefixes: string[]) => pick(prefixes, id, 12);
  const seven = (prefix: string) =>
    `(case when ${h(id, 13)} % 10 < 3 then '+7 (' || ${prefix} || ') ' || substr(${d7}, 1, 3) || '-' || substr(${d7}, 4, 2) || '-' || substr(${d7}, 6, 2)
           else '+7' || ${prefix} || ${d7} end)`;
  return `(case ${country}
    when 'Russia' then ${seven(code3(['916', '903', '925', '977', '985', '912', '921', '950', '964', '999']))}
    when 'Kazakhstan' then ${seven(code3(['701', '702', '705', '707', '747', '771', '775', '776', '777', '778']))}
    when 'Ukraine' then '+380' || ${code3(['50', '66', '67', '68', '93', '97'])} || ${d7}
    when 'Belarus' then '+375' || ${code3(['29', '33', '44'])} || ${d7}
    when 'Uzbekistan' then '+998' || ${code3(['90', '91', '93', '94', '97'])} || ${d7}
    when 'Kyrgyzstan' then '+996' || ${code3(['55', '70', '77'])} || ${digits(id, 11, 7)}
    when 'United Kingdom' then '+44 7' || ${digits(id, 11, 9)}
    when 'Germany' then '+49 15' || ${digits(id, 11, 9)}
    when 'Austria' then '+43 66' || ${digits(id, 11, 8)}
    when 'Ireland' then '+353 8' || ${digits(id, 11, 8)}
    when 'Australia' then '+61 4' || ${digits(id, 11, 8)}
    else '+1' || ${code3(['212', '310', '415', '416', '604', '718'])} || ${d7} end)`;
}

// ---------------------------------------------------------------- the seeder

async function ensureStaff(db: Db): Promise<{ id: string; role: StaffRole }[]> {
  const wanted: { email: string; name: string; role: StaffRole }[] = [];
  let n = 0;
  for (const [role, count] of STAFF_PLAN) {
    for (let i = 1; i <= count; i++) {
      const [cyr] = STAFF_NAMES[n % STAFF_NAMES.length]!;
      const [surname] = RU_SURNAMES[(n * 7) % RU_SURNAMES.length]!;
      const female = n % STAFF_NAMES.length >= 10;
      wanted.push({
        email: `bulk.${role.replaceAll('_', '.')}.${String(i).padStart(2, '0')}@bulk.local`,
        name: `${cyr} ${surname}${female ? 'а' : ''}`,
        role,
      });
      n += 1;
    }
  }
  const existing = await db
    .selectFrom('users')
    .select(['id', 'email', 'role'])
    .where('email', 'like', 'bulk.%@bulk.local')
    .where('deleted_at', 'is', null)
    .execute();
  const have = new Set(existing.map((u) => u.email));
  const missing = wanted.filter((w) => !have.has(w.email));
  if (missing.length) {
    // Nobody is meant to sign in as them: the password is random and not shown (reset-password gives them one).
    const hash = await hashPassword(randomBytes(18).toString('base64url'));
    await db
      .insertInto('users')
      .values(
        missing.map((w) => ({
          email: w.email,
          name: w.name,
          role: w.role,
          department: departmentOfRole(w.role),
          phone: null,
          password_hash: hash,
          deleted_at: null,
          last_login_at: null,
        })),
      )
      .execute();
  }
  const all = await db
    .selectFrom('users')
    .select(['id', 'role'])
    .where('email', 'like', 'bulk.%@bulk.local')
    .where('deleted_at', 'is', null)
    .orderBy('email')
    .execute();
  return all.map((u) => ({ id: u.id, role: u.role as StaffRole }));
}

/** The affiliates of the partner sources (by name, created once), so partner leads carry a real affiliate_id. */
async function ensureAffiliates(db: Db): Promise<Map<string, number>> {
  const names = SOURCES.filter((s) => s.startsWith('partner:')).map((s) => s.slice('partner:'.length));
  const wanted = [...new Set(names)];
  const have = await db
    .selectFrom('affiliates')
    .select(['id', 'name'])
    .where('name', 'in', wanted)
    .where('deleted_at', 'is', null)
    .execute();
  const missing = wanted.filter((n) => !have.some((a) => a.name === n));
  if (missing.length) {
    const added = await db
      .insertInto('affiliates')
      .values(
        missing.map((name) => ({
          name,
          description: 'Bulk seed partner',
          webhook_url: null,
          signing_secret_enc: null,
          deleted_at: null,
        })),
      )
      .returning(['id', 'name'])
      .execute();
    have.push(...added);
  }
  return new Map(have.map((a) => [a.name, Number(a.id)]));
}

export class BulkSeedRefused extends Error {}

export async function seedBulk(db: Db, options: BulkSeedOptions): Promise<BulkSeedResult> {
  const started = performance.now();
  const log = options.progress ?? (() => {});
  const total = options.clients;
  if (!Number.isSafeInteger(total) || total < 1) throw new BulkSeedRefused('--clients must be a whole number ≥ 1');
  const share = options.depositShare ?? 0.08;
  if (!(share >= 0 && share <= 1)) throw new BulkSeedRefused('--deposit-share must be between 0 and 1');
  const spanDays = options.spanDays ?? 540;
  const chunk = options.chunk ?? 50_000;

  const { n: existingClients, max } = await db
    .selectFrom('clients')
    .select([sql<string>`count(*)`.as('n'), sql<string | null>`max(id)`.as('max')])
    .executeTakeFirstOrThrow();
  if (Number(existingClients) > 0 && !options.append) {
    throw new BulkSeedRefused(
      `the database already has ${existingClients} clients; seed:bulk fills an empty base (pass --append to add to it)`,
    );
  }

  const staff = await ensureStaff(db);
  const affiliateIds = await ensureAffiliates(db);
  // A partner source's leads belong to its affiliate (clients.affiliate_id references affiliates, migration 0008).
  const affiliateOf = (col: string) =>
    `(case ${col} ${[...affiliateIds].map(([name, aid]) => `when ${lit(`partner:${name}`)} then ${aid}`).join(' ')} end)`;
  const sales = staff.filter((s) => departmentOfRole(s.role) === 'sales').map((s) => s.id);
  const retention = staff.filter((s) => departmentOfRole(s.role) === 'retention').map((s) => s.id);
  log(`staff: ${staff.length} managers and team leads (bulk.*@bulk.local)`);

  const base = Number(max ?? 0);
  const first = base + 1;
  const last = base + total;
  const depositPermille = Math.round(share * 1000);
  const uuidArr = (ids: string[]) => `(array[${ids.map(lit).join(',')}]::uuid[])`;
  let deposits = 0;
  let comments = 0;

  for (let from = first; from <= last; from += chunk) {
    const to = Math.min(last, from + chunk - 1);
    const id = 'g.id';
    const { first: fn, last: ln, firstLat, lastLat } = nameParts(id);
    const hasDeposit = `(${h(id, 20)} % 1000 < ${depositPermille})`;
    const country = byLang(id, pick(COUNTRIES_RU, id, 5), pick(COUNTRIES_EN, id, 5), pick(COUNTRIES_KK, id, 5));
    const domain = byLang(id, pick(DOMAINS_RU, id, 6), pick(DOMAINS_EN, id, 6), pick(DOMAINS_KK, id, 6));
    const email = `(case ${h(id, 7)} % 3
        when 0 then ${firstLat} || '.' || ${lastLat}
        when 1 then ${firstLat} || '_' || ${lastLat} || (1960 + ${h(id, 8)} % 45)::text
        else substr(${firstLat}, 1, 1) || ${lastLat} || (${id} % 10000)::text end) || '@' || ${domain}`;
    // Newest ids are the newest leads: created_at grows with the id over the span, with up to an hour of jitter.
    const createdAt = `(now() - interval '1 day' * ${spanDays} * ((${last} - ${id})::float8 / ${Math.max(1, total)}) - interval '1 second' * (${h(id, 9)} % 3600))`;
    const manager = `(case when ${h(id, 10)} % 100 < 15 then null
        when ${hasDeposit} then ${retention.length ? `${uuidArr(retention)}[1 + ${h(id, 14)} % ${retention.length}]` : 'null'}
        else ${sales.length ? `${uuidArr(sales)}[1 + ${h(id, 14)} % ${sales.length}]` : 'null'} end)`;
    const source = pick(SOURCES, id, 16);

    await db.transaction().execute(async (trx) => {
      await sql
        .raw(
          // phone_e164 (D17): every generated phone is '+', a country code and a national number of its plan, so
          // its digits after a '+' are the E.164 form normalisePhone gives (seed-bulk.test checks a sample).
          `insert into clients (id, name, email, phone, phone_e164, country, campaign, source, notes, status,
             assigned_manager, affiliate_id, ftd, total_deposits_cents, created_at, updated_at, last_comment_date)
           select id, name, email, phone, '+' || regexp_replace(phone, '\\D', '', 'g'), country, campaign, source, '',
             status, manager, ${affiliateOf('source')}, has_deposit, 0, created_at, created_at,
             case when ${h('id', 18)} % 100 < 25 then created_at + (now() - created_at) * ((${h('id', 19)} % 1000) / 1000.0) end
           from (
             select s.*, ${phoneSql('s.id', 's.country')} as phone
             from (
               select ${id} as id, ${fn} || ' ' || ${ln} as name, lower(${email}) as email, ${country} as country,
                 ${byLang(id, pick(CAMPAIGNS_RU, id, 15), pick(CAMPAIGNS_EN, id, 15), pick(CAMPAIGNS_KK, id, 15))} as campaign,
                 ${source} as source,
                 case when ${hasDeposit} then ${pick(STATUS_DEPOSIT, id, 21)} else ${pick(STATUS_NO_DEPOSIT, id, 21)} end as status,
                 ${manager} as manager, ${hasDeposit} as has_deposit, ${createdAt} as created_at
               from generate_series(${from}, ${to}) as g(id)
             ) s
           ) p`,
        )
        .execute(trx);

      // 1–5 deposits per depositing lead, spread between its creation and now in order: the first is the ftd.
      const cid = 'c.id';
      const n = `(array[1,1,1,1,1,2,2,2,3,3,4,5])[1 + ${h(cid, 22)} % 12]`;
      const dep = await sql
        .raw(
          `insert into deposits (client_id, amount_cents, deposit_type, notes, created_by, created_by_name, created_at,
             updated_at, credited_at, attributed_manager)
           select c.id,
             case when i = 1 then 25000 + (${h(cid, 23)} % 76) * 1000 else 10000 + (hashint8extended(c.id, 24 + i) & 9223372036854775807) % 300 * 1000 end,
             case when i = 1 then 'ftd' else 'reload' end, '', c.assigned_manager, coalesce(u.name, 'Bulk seed'),
             c.created_at + (now() - c.created_at) * (i::float8 / (${n} + 1)),
             c.created_at + (now() - c.created_at) * (i::float8 / (${n} + 1)), null, c.assigned_manager
           from clients c
           left join users u on u.id = c.assigned_manager
           cross join lateral generate_series(1, ${n}) as i
           where c.id between ${from} and ${to} and c.ftd`,
        )
        .execute(trx);
      deposits += Number(dep.numAffectedRows ?? 0n);
      await sql
        .raw(
          `update clients c set total_deposits_cents = s.total
           from (select client_id, sum(amount_cents) as total from deposits
                 where client_id between ${from} and ${to} and deleted_at is null group by client_id) s
           where c.id = s.client_id`,
        )
        .execute(trx);

      // The latest comment of each lead that has a last_comment_date, by its manager.
      const com = await sql
        .raw(
          `insert into comments (client_id, text, is_pinned, user_id, user_name, created_at)
           select c.id, ${pick(COMMENTS, cid, 25)}, ${h(cid, 26)} % 10 = 0, c.assigned_manager,
             coalesce(u.name, 'Bulk seed'), c.last_comment_date
           from clients c left join users u on u.id = c.assigned_manager
           where c.id between ${from} and ${to} and c.last_comment_date is not null`,
        )
        .execute(trx);
      comments += Number(com.numAffectedRows ?? 0n);
    });
    const done = to - first + 1;
    const secs = (performance.now() - started) / 1000;
    log(
      `clients ${done.toLocaleString('en')}/${total.toLocaleString('en')}  deposits ${deposits.toLocaleString('en')}  ${secs.toFixed(1)} s`,
    );
  }

  // The ids were given explicitly: move the sequence past them so the application's inserts go on after.
  await sql`select setval(pg_get_serial_sequence('clients', 'id'), (select max(id) from clients))`.execute(db);
  log('analyze (fresh statistics and visibility map for the planner)…');
  await sql`vacuum analyze clients`.execute(db);
  await sql`vacuum analyze deposits`.execute(db);
  await sql`vacuum analyze comments`.execute(db);
  const seconds = (performance.now() - started) / 1000;
  return { clients: total, deposits, comments, staff: staff.length, firstId: first, lastId: last, seconds };
}
