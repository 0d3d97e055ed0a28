import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resources } from '../src/i18n/resources';
import {
  formatChartTime,
  formatMoney,
  formatSignedMoney,
  instantToZonedInput,
  zonedInputToInstant,
} from '../src/lib/format';
import { eventText } from '../src/modules/market-info/format';
import { formatMoney as marketMoney, formatMoneyCompact } from '../src/modules/market-info/format';

import { unreadBadgeText, withdrawStatusKey } from '../src/modules/trading/rules';
import { usd } from '../src/modules/trading/rules';
import { formatNumber } from '../src/modules/site/api';
import { notificationMessage, notificationTitle } from '../src/modules/notifications/format';

type Tree = { [key: string]: string | Tree };
const all = resources as unknown as Record<string, Record<string, Tree>>;

function strings(tree: Tree, prefix = ''): [string, string][] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const at = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? [[at, value] as [string, string]] : strings(value, at);
  });
}
const everything = (lang: string) => Object.entries(all[lang]!).flatMap(([ns, tree]) => strings(tree, ns));
const get = (lang: string, ns: string, key: string) =>
  key
    .split('.')
    .reduce<Tree | string | undefined>((t, k) => (typeof t === 'object' ? t[k] : undefined), all[lang]![ns]);

const here = path.dirname(fileURLToPath(import.meta.url));
const snapshot = JSON.parse(
  fs.readFileSync(path.resolve(here, '../../server/content/market-info-snapshot.json'), 'utf8'),
) as { calendar: { id: string; title: string; description: string | null }[] };

/** Issue 15 defect 13: translations and formats. */
describe('translations (issue 15)', () => {
  it('names the manager roles in Russian', () => {
    expect(get('ru', 'translation', 'roles.sales_manager')).toBe('Менеджер продаж');
    expect(get('ru', 'translation', 'roles.retention_manager')).toBe('Менеджер удержания');
  });

  it('writes the first deposit one way per language: ФТД in ru (the status label of back-office.md), FTD in en', () => {
    expect(everything('ru').filter(([, v]) => /\bFTD\b/.test(v))).toEqual([]);
    expect(everything('en').filter(([, v]) => v.includes('ФТД'))).toEqual([]);
    expect(get('ru', 'translation', 'clients.statuses.ftd')).toBe('ФТД');
    expect(get('ru', 'clientBase', 'history.types.ftd')).toBe('ФТД');
  });

  it('does not abbreviate an hour in kk as a second', () => {
    expect(get('kk', 'platform', 'units.h')).not.toBe(get('kk', 'platform', 'units.s'));
    expect(get('kk', 'platform', 'chart.interval.1h')).toBe('1сағ');
  });

  it('has every shipped calendar event in ru, en and kk, the ru one in Russian', () => {
    for (const e of snapshot.calendar) {
      for (const lang of ['ru', 'en', 'kk']) {
        const title = get(lang, 'site', `marketInfo.events.${e.id}.title`);
        expect(typeof title, `${lang} ${e.id}`).toBe('string');
      }
      expect(get('ru', 'site', `marketInfo.events.${e.id}.title`)).toMatch(/[А-Яа-яЁё]/);
      expect(get('en', 'site', `marketInfo.events.${e.id}.title`)).toBe(e.title);
    }
    const t = (key: string, options?: { defaultValue: string }) =>
      (get('ru', 'site', key) as string | undefined) ?? options?.defaultValue ?? key;
    const event = { ...snapshot.calendar[0]!, type: 'economic' } as Parameters<typeof eventText>[0];
    expect(eventText(event, 'title', t)).toBe(get('ru', 'site', `marketInfo.events.${event.id}.title`));
    // A live provider's event keeps its own text.
    expect(eventText({ ...event, id: 'finnhub-123', title: 'Live event' }, 'title', t)).toBe('Live event');
  });
});

describe('one money format (§9)', () => {
  it("writes money as '$' with 2 decimals and en-US grouping everywhere", () => {
    for (const f of [formatMoney, usd]) {
      expect(f(1234.5)).toBe('$1,234.50');
      expect(f(-0.05)).toBe('$0.05');
      expect(f(1_000_000)).toBe('$1,000,000.00');
    }
    for (const lang of ['ru', 'en', 'kk']) {
      expect(marketMoney(1234.5, lang)).toBe('$1,234.50');
      expect(marketMoney(-2.25, lang)).toBe('-$2.25');
      expect(formatMoneyCompact(385.6e9, lang)).toBe('$385.6B');
    }
    expect(formatSignedMoney(-10)).toBe('-$10.00');
  });
});

describe('landing numbers', () => {
  it('writes kk numbers as ru does, en with its own separators', () => {
    expect(formatNumber(3000.5, 'kk', 1)).toBe(formatNumber(3000.5, 'ru', 1));
    expect(formatNumber(3000.5, 'ru', 1)).toMatch(/^3[\s\u00a0\u202f]000,5$/);
    expect(formatNumber(3000.5, 'en', 1)).toBe('3,000.5');
  });
});

describe('clocks (D19)', () => {
  it('reads a typed time in the business zone, whatever the browser zone is', () => {
    expect(zonedInputToInstant('2026-11-25T10:00', 'Europe/Kyiv')!.toISOString()).toBe('2026-11-25T08:00:00.000Z');
    expect(zonedInputToInstant('2026-07-01T10:00', 'Europe/Kyiv')!.toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(zonedInputToInstant('2026-11-25T10:00', 'America/New_York')!.toISOString()).toBe('2026-11-25T15:00:00.000Z');
    // A wall time the spring change skips moves forward by the gap; a repeated one takes its first occurrence.
    expect(zonedInputToInstant('2026-03-29T03:30', 'Europe/Kyiv')!.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(zonedInputToInstant('2026-10-25T03:30', 'Europe/Kyiv')!.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedInputToInstant('not a time', 'Europe/Kyiv')).toBeNull();
  });

  it('shows an instant as the business zone wall time in an input, and back', () => {
    expect(instantToZonedInput('2026-11-25T08:00:00Z', 'Europe/Kyiv')).toBe('2026-11-25T10:00');
    expect(instantToZonedInput('2026-11-25T08:00:00Z', 'America/New_York')).toBe('2026-11-25T03:00');
    const typed = '2026-12-31T23:45';
    expect(instantToZonedInput(zonedInputToInstant(typed, 'Asia/Almaty')!, 'Asia/Almaty')).toBe(typed);
  });

  it("labels the chart's axis in the zone it is given, not Moscow time", () => {
    const t = Date.UTC(2026, 10, 25, 8, 5) / 1000;
    expect(formatChartTime(t, 'America/New_York', false)).toBe('03:05');
    expect(formatChartTime(t, 'Asia/Tokyo', false)).toBe('17:05');
    expect(formatChartTime(t, 'UTC', true)).toBe('25.11, 08:05');
  });
});

describe('deposit intent notification (D21)', () => {
  it('says who wants to top up, how much and how, in ru and en', () => {
    const n = {
      id: 1,
      type: 'deposit_intent' as const,
      read: false,
      created_at: '2026-11-25T08:00:00.000Z',
      client_id: 7,
      client_name: 'Иван Петров',
      reminder_id: null,
      reminder_title: null,
      scheduled_time: null,
      amount: 1250,
      withdrawal_id: null,
      method: 'VISA/MasterCard',
    };
    const tr =
      (lang: string) =>
      (key: string, params: Record<string, string> = {}) =>
        Object.entries(params).reduce(
          (text, [k, v]) => text.replaceAll(`{{${k}}}`, v),
          get(lang, 'notify', key) as string,
        );
    const ru = tr('ru') as unknown as Parameters<typeof notificationMessage>[1];
    const en = tr('en') as unknown as Parameters<typeof notificationMessage>[1];
    expect(notificationTitle(n, ru)).toBe('Клиент хочет пополнить счет');
    expect(notificationMessage(n, ru, 'Europe/Kyiv')).toBe('Клиент Иван Петров: $1,250.00, способ: VISA/MasterCard');
    expect(notificationMessage(n, en, 'Europe/Kyiv')).toBe('Client Иван Петров: $1,250.00 via VISA/MasterCard');
  });
});

describe('client screens (issue 15)', () => {
  it('caps the unread badge at 99+', () => {
    expect(unreadBadgeText(1)).toBe('1');
    expect(unreadBadgeText(99)).toBe('99');
    expect(unreadBadgeText(100)).toBe('99+');
  });

  it("reads every withdrawal status, the second approval as 'under review'", () => {
    expect(withdrawStatusKey('pending')).toBe('pending');
    expect(withdrawStatusKey('awaiting_second_approval')).toBe('pending');
    expect(withdrawStatusKey('approved')).toBe('approved');
    expect(withdrawStatusKey('rejected')).toBe('rejected');
    expect(get('ru', 'platform', 'withdraw.mine.status.pending')).toBe('На рассмотрении');
  });
});
