import { BALANCE_BUCKETS, LEDGER_KINDS, TRADE_STATUSES, accountStatusSchema } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import en from '../src/i18n/en.json';
import ru from '../src/i18n/ru.json';
import {
  durationMinutes,
  formatPrice,
  formatSignedMoney,
  formatUtc,
  inTheMoney,
  potentialProfit,
  remainingTime,
} from '../src/modules/trading-admin/format';
import {
  acceptsBalanceInput,
  acceptsMaxAmountInput,
  acceptsPayoutInput,
  balanceAmountCents,
  balanceApplyEnabled,
  resultingBalanceCents,
  settingsBody,
} from '../src/modules/trading-admin/forms';
import { accountsListSearch, parseAccountsListParams } from '../src/modules/trading-admin/list-state';

describe('§4 remaining time of an active trade', () => {
  it('reads Истекла at or past expiry', () => {
    expect(remainingTime(0)).toEqual({ kind: 'expired' });
    expect(remainingTime(-5000)).toEqual({ kind: 'expired' });
    expect(remainingTime(Number.NaN)).toEqual({ kind: 'expired' });
  });
  it('reads m:ss under an hour, a part of a second counting as one', () => {
    expect(remainingTime(300_000)).toEqual({ kind: 'clock', text: '5:00' });
    expect(remainingTime(65_000)).toEqual({ kind: 'clock', text: '1:05' });
    expect(remainingTime(300)).toEqual({ kind: 'clock', text: '0:01' });
    expect(remainingTime(3_599_000)).toEqual({ kind: 'clock', text: '59:59' });
  });
  it("reads 'Xч Yм' with hours and 'Xд Yч' with days", () => {
    expect(remainingTime(3_600_000)).toEqual({ kind: 'hours', hours: 1, minutes: 0 });
    expect(remainingTime(4 * 3_600_000 + 30 * 60_000)).toEqual({ kind: 'hours', hours: 4, minutes: 30 });
    expect(remainingTime(86_400_000 + 2 * 3_600_000)).toEqual({ kind: 'days', days: 1, hours: 2 });
    expect(remainingTime(30 * 86_400_000)).toEqual({ kind: 'days', days: 30, hours: 0 });
  });
  it('has the §4 texts in ru', () => {
    expect(ru.tradingAccounts.remaining).toEqual({
      expired: 'Истекла',
      days: '{{days}}д {{hours}}ч',
      hours: '{{hours}}ч {{minutes}}м',
    });
  });
});

describe('trade figures', () => {
  it('potential profit is amount × payout / 100 in whole cents, rounded down like the settlement rule', () => {
    expect(potentialProfit(10, 85)).toBe(8.5);
    expect(potentialProfit(25, 85)).toBe(21.25);
    expect(potentialProfit(0.99, 85)).toBe(0.84);
    expect(potentialProfit(100, 100)).toBe(100);
  });
  it('duration in whole minutes, a missing one counting as 60 s', () => {
    expect(durationMinutes(300)).toBe(5);
    expect(durationMinutes(90)).toBe(1);
    expect(durationMinutes(null)).toBe(1);
    expect(durationMinutes(0)).toBe(1);
    expect(durationMinutes(2_592_000)).toBe(43_200);
  });
  it('dates in UTC as DD.MM.YYYY HH:mm UTC', () => {
    expect(formatUtc('2026-03-05T07:09:59.999Z')).toBe('05.03.2026 07:09 UTC');
    expect(formatUtc('2026-12-31T23:59:00+02:00')).toBe('31.12.2026 21:59 UTC');
  });
  it('prices with the asset decimals', () => {
    expect(formatPrice(1.1146, 'EURUSD')).toBe('1.11460');
    expect(formatPrice(143.21, 'USDJPY')).toBe('143.210');
    expect(formatPrice(67500, 'BTCUSD')).toBe('67500.00');
    expect(formatPrice(null, 'EURUSD')).toBeNull();
  });
  it('signed money and in-the-money', () => {
    expect(formatSignedMoney(8.5)).toBe('+$8.50');
    expect(formatSignedMoney(-1234.5)).toBe('\u2212$1,234.50');
    expect(formatSignedMoney(0)).toBe('$0.00');
    expect(inTheMoney('call', 1.1, 1.2)).toBe(true);
    expect(inTheMoney('put', 1.1, 1.2)).toBe(false);
    expect(inTheMoney('put', 1.1, 1.1)).toBeNull();
    expect(inTheMoney('call', 1.1, null)).toBeNull();
  });
});

describe('§5 balance modal', () => {
  it('takes a leading minus and a decimal, nothing else', () => {
    for (const ok of ['', '-', '12', '-12', '12.', '12.5', '.5', '12,50'])
      expect(acceptsBalanceInput(ok), ok).toBe(true);
    for (const bad of ['1e3', 'abc', '1-2', '--1', '1.2.3', '$5']) expect(acceptsBalanceInput(bad), bad).toBe(false);
  });
  it('applies only with an amount above 0', () => {
    expect(balanceApplyEnabled('')).toBe(false);
    expect(balanceApplyEnabled('0')).toBe(false);
    expect(balanceApplyEnabled('-5')).toBe(false);
    expect(balanceApplyEnabled('-')).toBe(false);
    expect(balanceApplyEnabled('0.01')).toBe(true);
  });
  it('refuses a non-number, a negative and more than 2 decimals; takes a comma', () => {
    expect(balanceAmountCents('-5')).toBeNull();
    expect(balanceAmountCents('.')).toBeNull();
    expect(balanceAmountCents('1.005')).toBeNull();
    expect(balanceAmountCents('19.99')).toBe(1999);
    expect(balanceAmountCents('19,9')).toBe(1990);
  });
  it('computes the resulting balance', () => {
    expect(resultingBalanceCents(100.5, 'set', 2000)).toBe(2000);
    expect(resultingBalanceCents(100.5, 'add', 2000)).toBe(12050);
    expect(resultingBalanceCents(100.5, 'subtract', 20000)).toBe(-9950);
  });
  it('has the §8 texts', () => {
    expect(ru.tradingAccounts.balanceModal.success).toBe('Баланс обновлен успешно!');
    expect(ru.tradingAccounts.balanceModal.error).toBe('Ошибка обновления баланса: {{reason}}');
    expect(ru.validation.invalid_amount).toBe('Введите корректную сумму');
  });
});

describe('§5 trading settings', () => {
  it('max amount takes digits and a decimal point only', () => {
    expect(acceptsMaxAmountInput('1000.5')).toBe(true);
    expect(acceptsMaxAmountInput('')).toBe(true);
    expect(acceptsMaxAmountInput('-1')).toBe(false);
    expect(acceptsMaxAmountInput('1e3')).toBe(false);
  });
  it('payout takes 1–100 or empty, else the keystroke is ignored', () => {
    for (const ok of ['', '1', '85', '100', '50.', '99.5']) expect(acceptsPayoutInput(ok), ok).toBe(true);
    for (const bad of ['0', '101', '1000', '-5', 'a']) expect(acceptsPayoutInput(bad), bad).toBe(false);
  });
  it('saves a whole payout 1–100 and a maximum of at least $1', () => {
    expect(settingsBody({ trading_enabled: false, max_trade_amount: '250.5', payout_percentage: '80' })).toEqual({
      ok: true,
      body: { trading_enabled: false, max_trade_amount: 250.5, payout_percentage: 80 },
    });
    expect(settingsBody({ trading_enabled: true, max_trade_amount: '', payout_percentage: '' })).toEqual({
      ok: false,
      errors: ['payout', 'maxAmount'],
    });
    expect(settingsBody({ trading_enabled: true, max_trade_amount: '0.5', payout_percentage: '85.5' })).toEqual({
      ok: false,
      errors: ['payout', 'maxAmount'],
    });
    expect(settingsBody({ trading_enabled: true, max_trade_amount: '10.', payout_percentage: '100' }).ok).toBe(true);
    expect(settingsBody({ trading_enabled: true, max_trade_amount: '1.001', payout_percentage: '1' }).ok).toBe(false);
  });
  it('has the §8 texts', () => {
    expect(ru.tradingAccounts.settings.success).toBe('Настройки сохранены успешно!');
    expect(ru.tradingAccounts.settings.error).toBe('Ошибка сохранения настроек: {{reason}}');
  });
});

describe('trading accounts list state in the address', () => {
  it('reads valid values and drops the rest', () => {
    expect(
      parseAccountsListParams(new URLSearchParams('search=ivan&status=blocked&balance=high&page=3&per_page=50')),
    ).toEqual({
      search: 'ivan',
      status: 'blocked',
      balance: 'high',
      page: 3,
      perPage: 50,
    });
    expect(parseAccountsListParams(new URLSearchParams('status=gone&balance=huge&page=-1&per_page=7'))).toEqual({
      search: '',
      status: null,
      balance: null,
      page: 1,
      perPage: 25,
    });
  });
  it('writes only what differs from the defaults', () => {
    expect(accountsListSearch({ search: ' ', status: null, balance: null, page: 1, perPage: 25 }).toString()).toBe('');
    expect(
      accountsListSearch({ search: 'a b', status: 'demo', balance: 'zero', page: 2, perPage: 100 }).toString(),
    ).toBe('search=a+b&status=demo&balance=zero&page=2&per_page=100');
  });
});

describe('trading translations', () => {
  const languages = { ru, en };
  it.each([...LEDGER_KINDS])('has the ledger kind %s in ru and en', (kind) => {
    for (const lang of Object.values(languages)) expect(lang.tradingAccounts.ledger.kinds[kind]).toBeTruthy();
  });
  it.each([...TRADE_STATUSES])('has the trade result %s in ru and en', (status) => {
    for (const lang of Object.values(languages)) expect(lang.tradingAccounts.results[status]).toBeTruthy();
  });
  it.each([...accountStatusSchema.options])('has the account status %s in ru and en', (status) => {
    for (const lang of Object.values(languages)) expect(lang.tradingAccounts.statuses[status]).toBeTruthy();
  });
  it.each([...BALANCE_BUCKETS])('has the balance bucket %s in ru and en', (bucket) => {
    for (const lang of Object.values(languages)) expect(lang.tradingAccounts.balanceBuckets[bucket]).toBeTruthy();
  });
  it('keeps the texts of §2.15, §2.16, §2.17 and §8', () => {
    expect(ru.tradingAccounts.statuses).toEqual({
      active: 'Активен',
      blocked: 'Заблокирован',
      demo: 'Демо',
      unknown: 'Неизвестно',
    });
    expect(ru.tradingAccounts.results).toMatchObject({
      won: 'ВЫИГРАЛ',
      lost: 'ПРОИГРАЛ',
      tie: 'ВОЗВРАТ',
      voided: 'АННУЛИРОВАНА',
    });
    expect(ru.tradingAccounts.stats).toEqual({
      totalAccounts: 'Всего аккаунтов',
      activeAccounts: 'Активные',
      totalBalance: 'Общий баланс',
      totalProfit: 'Общая прибыль',
      activeTrades: 'Активные сделки',
    });
    expect(ru.tradingAccounts.loading).toBe('Загрузка торговых аккаунтов...');
    expect(ru.tradingAccounts.empty).toBe('Торговые аккаунты не найдены');
    expect(ru.tradingAccounts.shown).toBe('Показано {{shown}} из {{total}} торговых аккаунтов');
    expect(ru.tradingAccounts.never).toBe('Никогда');
    expect(ru.tradingAccounts.inProgress).toBe('В процессе');
    expect(ru.tradingAccounts.filters.clear).toBe('Очистить');
    expect(ru.tradingAccounts.statusError).toBe('Ошибка выполнения операции: {{reason}}');
    expect(ru.tradingAccounts.detail.title).toBe('Торговый аккаунт: {{name}}');
    expect(ru.tradingAccounts.detail.loading).toBe('Загрузка торгового аккаунта...');
    expect(ru.tradingAccounts.detail.notFound).toBe('Торговый аккаунт не найден');
    expect(ru.tradingAccounts.detail.backToList).toBe('Вернуться к списку');
    expect(ru.tradingAccounts.active.title).toBe('Активные сделки ({{count}})');
    expect(ru.tradingAccounts.active.void).toBe('Аннулировать');
    // Issue 20 finding 11: the void is sent to a second staff member, who confirms it on the 'Подтверждения' tab.
    expect(ru.tradingAccounts.voidModal.sent).toBe(
      'Аннулирование сделки #{{id}} отправлено на подтверждение второму сотруднику',
    );
    expect(ru.voids.confirmed).toBe('Сделка #{{id}} аннулирована, ставка {{amount}} возвращена');
    expect(ru.tradingAccounts.voidModal.error).toBe('Ошибка аннулирования сделки: {{reason}}');
    expect(ru.tradingAccounts.history.columns).toEqual({
      date: 'Дата ({{zone}})', // D19: the business zone, not UTC
      asset: 'Актив',
      direction: 'Направление',
      amount: 'Сумма',
      strike: 'Цена открытия',
      close: 'Цена закрытия',
      duration: 'Длительность',
      result: 'Результат',
      profit: 'Прибыль/Убыток',
    });
    expect(ru.tradingAccounts.settings.enabled).toBe('Разрешена');
    expect(ru.tradingAccounts.settings.disabled).toBe('Заблокирована');
    expect(ru.tradingPlatform.tabs).toEqual({ deposits: 'Пополнение', messages: 'Сообщения клиенту' });
    expect(ru.tradingPlatform.methods.empty).toBe('Способы пополнения типа "{{label}}" не настроены');
    expect(ru.tradingPlatform.methods.noDetails).toBe('Реквизиты не указаны');
    expect(ru.tradingPlatform.methods.updateError).toBe('Ошибка при обновлении способа пополнения');
    expect(ru.tradingPlatform.messages.required).toBe('Выберите клиента и введите сообщение');
    expect(ru.tradingPlatform.messages.sent).toBe('Сообщение отправлено');
    expect(ru.tradingPlatform.messages.sendError).toBe('Ошибка при отправке сообщения');
    expect(ru.tradingPlatform.messages.historyEmpty).toBe('Нет сообщений для данного клиента');
    expect(ru.tradingPlatform.messages.deniedText).toBe(
      'Отправка сообщений клиентам доступна только для супер-админов, админов и тим-лидеров retention.',
    );
  });
});
