import { normalisePhone, type ClientStatus, type Department, type StaffRole } from '@brokerage/shared';
import { createDeposit, SEED_CREDITS } from '../modules/deposits/service.js';
import { CREDIT_WINDOW_HOURS } from '../modules/manual-credits/window.js';
import type { Trx } from '../platform/db/types.js';
import type { Actor } from '../platform/auth/actor.js';
import { KK_FEMALE, KK_MALE, type Pair } from './lead-pool.js';

/**
 * The demo client base (issue 4 point 9): a few hundred CRM leads with Russian, Kazakh and English names, e-mails on
 * the reserved example domains (RFC 2606, so no demo address belongs to anyone), phones in the numbering of their
 * country, statuses of back-office.md §4 in plausible proportions, campaigns and sources, created over the last 90
 * days; most assigned across the demo sales and retention staff, some waiting unassigned. Comments (some pinned),
 * reminders (pending in the next days, a few overdue, completed and cancelled ones) and deposits for about a quarter
 * of them. Everything follows one seeded generator, so every new database gets the same base.
 *
 * Leads, comments and reminders are batch inserts. Deposits go one by one through createDeposit, the code of
 * POST /api/deposits, with the lead's manager as the actor (decisions.md D3): the leads have no trading account, so
 * the deposits wait uncredited (no ledger entry) until a lead registers, the first is ftd and turns new into ftd.
 * Only their dates are moved afterwards, into the lead's history, in their order, so ftd stays the earliest.
 */

/** A small seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How many leads the demo base gets. */
export const DEMO_LEAD_COUNT = 300;
const DAY_MS = 24 * 60 * 60 * 1000;
const SPAN_DAYS = 90;

/**
 * Staff beyond the one-per-role demo logins, so each department has two managers. They sign in with the demo password
 * too, but are not listed among the demo accounts (that list stays one account per role, e2e/tests/roles.test.ts).
 */
export const EXTRA_DEMO_STAFF: { email: string; name: string; role: StaffRole }[] = [
  { email: 'sales.manager.2@demo.local', name: 'Дарья Волкова', role: 'sales_manager' },
  { email: 'retention.manager.2@demo.local', name: 'Тимур Ахметов', role: 'retention_manager' },
];

export interface DemoStaffMember {
  id: string;
  name: string;
  role: StaffRole;
  department: Department | null;
}

// No name here may contain 'anna' (in either script): the demo's Anna Schmidt is the one a search for it finds.
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
  ['Евгений', 'evgeny'],
  ['Павел', 'pavel'],
  ['Владимир', 'vladimir'],
  ['Роман', 'roman'],
  ['Виктор', 'viktor'],
  ['Константин', 'konstantin'],
  ['Юрий', 'yury'],
];
const RU_FEMALE: Pair[] = [
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
const RU_SURNAMES: Pair[] = [
  ['Смирнов', 'smirnov'],
  ['Кузнецов', 'kuznetsov'],
  ['Попов', 'popov'],
  ['Васильев', 'vasiliev'],
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
  ['Белов', 'belov'],
  ['Григорьев', 'grigoriev'],
];
const KK_SURNAMES: Pair[] = [
  ['Нурланов', 'nurlanov'],
  ['Ахметов', 'akhmetov'],
  ['Сейтқалиев', 'seitkaliev'],
  ['Жумабаев', 'zhumabaev'],
  ['Искаков', 'iskakov'],
  ['Омаров', 'omarov'],
  ['Касымов', 'kasymov'],
  ['Тулегенов', 'tulegenov'],
  ['Байжанов', 'baizhanov'],
  ['Абдрахманов', 'abdrakhmanov'],
];
const EN_MALE = ['James', 'Oliver', 'Harry', 'George', 'Thomas', 'William', 'Daniel', 'Lukas', 'Felix', 'Jonas'];
const EN_FEMALE = ['Emily', 'Sophie', 'Olivia', 'Charlotte', 'Amelia', 'Laura', 'Lena', 'Julia', 'Sarah', 'Clara'];
const EN_SURNAMES = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Wilson',
  'Evans',
  'Walker',
  'Wright',
  'Clarke',
  'Hughes',
  'Müller',
  'Schneider',
  'Fischer',
  'Weber',
  'Becker',
  'Hoffmann',
];

type Lang = 'ru' | 'kk' | 'en';
interface Country {
  name: string;
  weight: number;
  langs: [Lang, number][];
  phone: () => string;
}

/** The leads, each a pure function of the generator: built first, inserted after. */
interface PlannedLead {
  name: string;
  email: string;
  phone: string;
  country: string;
  lang: Lang;
  campaign: string;
  source: string;
  status: ClientStatus;
  manager: DemoStaffMember | null;
  createdAt: Date;
  deposits: { amount: number; at: Date }[];
  comments: { text: string; pinned: boolean; at: Date; by: DemoStaffMember }[];
  reminders: {
    title: string;
    description: string;
    at: Date;
    status: 'pending' | 'completed' | 'cancelled';
    createdAt: Date;
    by: DemoStaffMember;
  }[];
  lastCommentAt: Date | null;
}

const COMMENTS: Record<string, string[]> = {
  new: [
    'Не дозвонился, телефон недоступен.',
    'Оставил заявку на сайте, перезвонить.',
    'Сбросил звонок, написал в WhatsApp.',
  ],
  in_progress: [
    'Интересуется криптовалютой, отправил презентацию.',
    'Просит перезвонить после 18:00.',
    'Обсудили условия, думает над суммой.',
    'Был на вебинаре, задавал вопросы про золото.',
  ],
  potential: [
    'Готов пополнить после зарплаты, 10-го числа.',
    'Есть опыт торговли на форексе, хочет демо.',
    'Ждёт подтверждения от супруги, перезвонить в пятницу.',
  ],
  ftd: [
    'Внёс первый депозит, доволен платформой.',
    'Пополнил счёт, объяснил работу с графиком.',
    'Передан в удержание, обсудили стратегию.',
    'Спрашивал про вывод средств, объяснил сроки.',
    'Планирует повторное пополнение в конце месяца.',
  ],
  not_interested: ['Не интересно, просил больше не звонить.', 'Говорит, что уже работает с другим брокером.'],
  not_potential: ['Нет свободных средств.', 'Студент, бюджета нет.'],
  no_russian: ['Не говорит по-русски, нужен англоязычный менеджер.'],
  under_18: ['Клиенту 17 лет, регистрация невозможна.'],
  replace: ['Номер не принадлежит клиенту, нужна замена лида.'],
  duplicate: ['Дубль: клиент уже есть в базе под другой почтой.'],
  fake: ['Номер не существует, данные выдуманы.'],
};
const REMINDERS = [
  ['Перезвонить', 'Уточнить решение по депозиту'],
  ['Отправить материалы', 'Презентация и условия по счёту'],
  ['Повторный звонок', ''],
  ['Проверить документы', 'Паспорт и подтверждение адреса'],
  ['Обсудить пополнение', 'Клиент обещал пополнить'],
  ['Провести демо', 'Показать платформу по видеосвязи'],
] as const;
const SOURCES: [string, string[], number][] = [
  ['facebook', ['fb_crypto_ru', 'fb_gold_kz', 'fb_invest_en'], 30],
  ['google', ['google_forex', 'google_brand'], 20],
  ['telegram', ['tg_signals', 'tg_invest_channel'], 15],
  ['tiktok', ['tiktok_btc', 'tiktok_young_investor'], 10],
  ['website', [''], 15],
  ['affiliate', ['partner_leadgen', 'partner_finblog'], 10],
];
const DEPOSIT_AMOUNTS: [number, number][] = [
  [100, 12],
  [250, 20],
  [300, 8],
  [500, 22],
  [1000, 16],
  [1500, 6],
  [2000, 8],
  [3000, 4],
  [5000, 4],
];
const STATUSES: [ClientStatus, number][] = [
  ['new', 28],
  ['in_progress', 22],
  ['potential', 12],
  ['not_interested', 12],
  ['not_potential', 8],
  ['no_russian', 3],
  ['under_18', 2],
  ['replace', 4],
  ['duplicate', 5],
  ['fake', 4],
];

export async function seedDemoLeads(
  trx: Trx,
  staff: DemoStaffMember[],
  now: Date,
): Promise<{ leads: number; deposits: number; comments: number; reminders: number }> {
  const random = seededRandom(20261124);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const weighted = <T>(items: readonly (readonly [T, ...unknown[]])[], weightAt = 1): T => {
    const total = items.reduce((s, it) => s + (it[weightAt] as number), 0);
    let r = random() * total;
    for (const it of items) {
      r -= it[weightAt] as number;
      if (r < 0) return it[0];
    }
    return items.at(-1)![0];
  };
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const countries: Country[] = [
    {
      name: 'Россия',
      weight: 36,
      langs: [['ru', 1]],
      phone: () => `+79${pick(['01', '03', '05', '10', '15', '16', '26', '52', '85', '99'])}${digits(7)}`,
    },
    {
      name: 'Казахстан',
      weight: 24,
      langs: [
        ['kk', 7],
        ['ru', 3],
      ],
      phone: () => `+77${pick(['01', '02', '05', '07', '47', '71', '75', '77', '78'])}${digits(7)}`,
    },
    {
      name: 'Украина',
      weight: 8,
      langs: [['ru', 1]],
      phone: () => `+380${pick(['50', '63', '66', '73', '93', '95', '97', '99'])}${digits(7)}`,
    },
    {
      name: 'Беларусь',
      weight: 5,
      langs: [['ru', 1]],
      phone: () => `+375${pick(['29', '33', '44'])}${digits(7)}`,
    },
    {
      name: 'Germany',
      weight: 13,
      langs: [
        ['ru', 1],
        ['en', 1],
      ],
      phone: () => `+49${pick(['151', '152', '160', '170', '171', '176'])}${digits(8)}`,
    },
    {
      name: 'United Kingdom',
      weight: 14,
      langs: [
        ['en', 4],
        ['ru', 1],
      ],
      phone: () => `+447${pick(['400', '700', '800', '900', '911'])}${digits(6)}`,
    },
  ];
  const byRole = (roles: StaffRole[]) => staff.filter((s) => roles.includes(s.role));
  const sales = byRole(['sales_manager', 'manager', 'team_lead_sales']);
  const retention = byRole(['retention_manager', 'team_lead_retention']);
  /** Managers carry most leads, team leads a few of their own. */
  const assignee = (team: DemoStaffMember[]) =>
    weighted(team.map((s) => [s, s.role.startsWith('team_lead') ? 1 : 3] as const));
  const between = (from: number, to: number) => new Date(from + random() * Math.max(0, to - from));

  const emails = new Set<string>();
  const phones = new Set<string>();
  const planned: PlannedLead[] = [];
  for (let i = 0; i < DEMO_LEAD_COUNT; i++) {
    const country = weighted(countries.map((c) => [c, c.weight] as const));
    const lang = weighted(country.langs);
    const female = random() < 0.45;
    let name: string;
    let local: string;
    if (lang === 'en') {
      const first = pick(female ? EN_FEMALE : EN_MALE);
      const last = pick(EN_SURNAMES);
      name = `${first} ${last}`;
      local = `${first}.${last}`.toLowerCase().replace('ü', 'ue');
    } else {
      const [first, firstLatin] = pick(lang === 'kk' ? (female ? KK_FEMALE : KK_MALE) : female ? RU_FEMALE : RU_MALE);
      const [last, lastLatin] = pick(lang === 'kk' ? KK_SURNAMES : RU_SURNAMES);
      name = `${first} ${last}${female ? 'а' : ''}`;
      const surname = `${lastLatin}${female ? 'a' : ''}`;
      local = pick([
        `${firstLatin}.${surname}`,
        `${firstLatin[0]}.${surname}`,
        `${surname}${1970 + Math.floor(random() * 36)}`,
      ]);
    }
    let email = `${local}@${pick(['example.com', 'example.org', 'example.net'])}`;
    for (let n = 2; emails.has(email); n++) email = email.replace(/(\d*)@/, `${n}@`);
    emails.add(email);
    let phone = country.phone();
    // Unique, and none with the digits the demo's own Oleg Koval is found by (+38067…).
    while (phones.has(phone) || phone.replace(/\D/g, '').includes('38067')) phone = country.phone();
    phones.add(phone);

    // Older leads are fewer than fresh ones: the spread leans to the recent weeks.
    const ageMs = Math.pow(random(), 1.4) * SPAN_DAYS * DAY_MS;
    const createdAt = new Date(now.getTime() - ageMs - 60 * 60_000);
    const [source, campaigns] = weighted(SOURCES.map(([s, c, w]) => [[s, c] as const, w] as const));
    const campaign = pick(campaigns);

    // About a quarter deposit; some fresh leads wait unassigned for the team leads to hand out.
    const fresh = ageMs < 10 * DAY_MS;
    const unassigned = fresh ? random() < 0.35 : random() < 0.04;
    const depositor = !unassigned && ageMs > 2 * DAY_MS && random() < 0.3;
    let status: ClientStatus;
    if (unassigned) status = random() < 0.85 ? 'new' : weighted(STATUSES.slice(5));
    else if (depositor)
      status =
        random() < 0.8
          ? 'new'
          : weighted<ClientStatus>([
              ['in_progress', 1],
              ['potential', 1],
            ]);
    else if (lang === 'en' && random() < 0.35) status = 'no_russian';
    else status = weighted(STATUSES);
    const manager = unassigned ? null : depositor && random() < 0.75 ? assignee(retention) : assignee(sales);

    const deposits: PlannedLead['deposits'] = [];
    if (depositor) {
      const count = weighted<number>([
        [1, 55],
        [2, 30],
        [3, 15],
      ]);
      // Recorded before D20's 24-hour window (issue 20 finding 3): a fresh demo's staff credits on these leads do not
      // start out waiting for a second person.
      const latest = now.getTime() - (CREDIT_WINDOW_HOURS + 1) * 60 * 60_000;
      let from = createdAt.getTime() + DAY_MS;
      for (let d = 0; d < count; d++) {
        const at = between(Math.min(from, latest), latest);
        deposits.push({ amount: weighted(DEPOSIT_AMOUNTS), at });
        from = at.getTime() + 60_000;
      }
    }
    const comments: PlannedLead['comments'] = [];
    const reminders: PlannedLead['reminders'] = [];
    if (manager) {
      const texts = COMMENTS[deposits.length ? 'ftd' : status] ?? COMMENTS.in_progress!;
      const count = weighted<number>([
        [0, 15],
        [1, 35],
        [2, 30],
        [3, 15],
        [4, 5],
      ]);
      let from = createdAt.getTime() + 10 * 60_000;
      for (let c = 0; c < count; c++) {
        const at = between(from, Math.min(from + 20 * DAY_MS, now.getTime() - 5 * 60_000));
        comments.push({ text: pick(texts), pinned: false, at, by: manager });
        from = at.getTime() + 60_000;
      }
      if (comments.length && random() < 0.2) comments[0]!.pinned = true;
      const open = ['new', 'in_progress', 'potential'].includes(status) || deposits.length > 0;
      if (open && random() < 0.55) {
        const [title, description] = pick(REMINDERS);
        const kind = weighted<'soon' | 'overdue' | 'completed' | 'cancelled'>([
          ['soon', 55],
          ['overdue', 15],
          ['completed', 20],
          ['cancelled', 10],
        ]);
        // Whole quarter-hours in the working day (UTC 6–16, Moscow 9–19); none within the notification windows of
        // now (the next five minutes, the last hour), so a new demo database raises no reminder notification at once.
        const day = new Date(
          now.getTime() + (kind === 'soon' ? 1 + Math.floor(random() * 7) : -(1 + Math.floor(random() * 5))) * DAY_MS,
        );
        day.setUTCHours(6 + Math.floor(random() * 10), Math.floor(random() * 4) * 15, 0, 0);
        const scheduled = day.getTime() < createdAt.getTime() ? new Date(now.getTime() + 2 * DAY_MS) : day;
        reminders.push({
          title,
          description,
          at: scheduled,
          status: kind === 'completed' ? 'completed' : kind === 'cancelled' ? 'cancelled' : 'pending',
          createdAt: between(createdAt.getTime(), Math.min(scheduled.getTime(), now.getTime() - 60_000)),
          by: manager,
        });
      }
    }
    const lastCommentAt = comments.length ? comments.at(-1)!.at : null;
    planned.push({
      name,
      email,
      phone,
      country: country.name,
      lang,
      campaign,
      source,
      status,
      manager,
      createdAt,
      deposits,
      comments,
      reminders,
      lastCommentAt,
    });
  }

  // The leads, oldest first, so their ids follow their age like imported leads would.
  planned.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const inserted = await trx
    .insertInto('clients')
    .values(
      planned.map((p) => ({
        name: p.name,
        email: p.email,
        phone: p.phone,
        // D17: every demo phone is international, so the default region does not matter.
        phone_e164: normalisePhone(p.phone),
        country: p.country,
        campaign: p.campaign,
        source: p.source,
        notes: '',
        status: p.status,
        assigned_manager: p.manager?.id ?? null,
        affiliate_id: null,
        user_id: null,
        registration_date: null,
        last_comment_date: p.lastCommentAt,
        created_at: p.createdAt,
        updated_at: p.lastCommentAt ?? p.createdAt,
      })),
    )
    .returning(['id', 'email'])
    .execute();
  const idOf = new Map(inserted.map((r) => [r.email, Number(r.id)]));

  const comments = planned.flatMap((p) =>
    p.comments.map((c) => ({
      client_id: idOf.get(p.email)!,
      text: c.text,
      is_pinned: c.pinned,
      user_id: c.by.id,
      user_name: c.by.name,
      created_at: c.at,
    })),
  );
  if (comments.length) await trx.insertInto('comments').values(comments).execute();
  const reminders = planned.flatMap((p) =>
    p.reminders.map((r) => ({
      client_id: idOf.get(p.email)!,
      title: r.title,
      description: r.description,
      scheduled_time: r.at,
      status: r.status,
      created_by: r.by.id,
      created_at: r.createdAt,
      updated_at: r.status === 'pending' ? r.createdAt : new Date(Math.min(r.at.getTime(), now.getTime())),
    })),
  );
  if (reminders.length) await trx.insertInto('reminders').values(reminders).execute();

  let deposits = 0;
  for (const p of planned) {
    if (!p.deposits.length) continue;
    const actor: Actor = {
      id: p.manager!.id,
      name: p.manager!.name,
      role: p.manager!.role,
      department: p.manager!.department,
      ip: null,
    };
    for (const [i, d] of p.deposits.entries()) {
      const notes = i === 0 ? 'Первый депозит' : pick(['Повторное пополнение', 'Пополнение по звонку', '']);
      const made = await createDeposit(
        trx,
        actor,
        { client_id: idOf.get(p.email)!, amount: d.amount, notes },
        SEED_CREDITS,
      );
      await trx.updateTable('deposits').set({ created_at: d.at, updated_at: d.at }).where('id', '=', made.id).execute();
      deposits++;
    }
  }
  return { leads: planned.length, deposits, comments: comments.length, reminders: reminders.length };
}
