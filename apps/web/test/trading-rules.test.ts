import { settleTrade } from '@brokerage/shared';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../src/i18n/resources';
import {
  countdownColour,
  depositProblem,
  formatCountdown,
  isLoadingProblem,
  potentialProfit,
  problemKey,
  shapeAmount,
  shapeCardExpiry,
  shapeCardHolder,
  shapeCardNumber,
  signedUsd,
  tradeMaximum,
  tradeProblem,
  tradeStanding,
  withdrawProblem,
  type Problem,
  type WithdrawForm,
} from '../src/modules/trading/rules';

/**
 * The client screen's input rules (client-platform.md §5 with its changes) and the texts the screen shows for them,
 * read from the platform translation files in ru and en — the way the trading panel, the deposit and the withdrawal
 * modals show them.
 */
const translators: Record<'ru' | 'en', TFunction> = {} as never;
beforeAll(async () => {
  for (const lng of ['ru', 'en'] as const) {
    const instance = i18next.createInstance();
    await instance.init({
      resources,
      lng,
      ns: ['platform'],
      defaultNS: 'platform',
      interpolation: { escapeValue: false },
    });
    translators[lng] = instance.t;
  }
});

function text(problem: Problem | null, lng: 'ru' | 'en'): string | null {
  if (!problem) return null;
  const key = problemKey(problem.code);
  const t = translators[lng] as unknown as (k: string, o?: object) => string;
  const out = t(key, problem.params ?? {});
  expect(out, `missing translation ${key}`).not.toBe(key);
  return out;
}

const TODAY = { month: 11, year: 2026 };
// 4111 1111 1111 1111 passes the Luhn check; 4111 1111 1111 1112 does not.
const GOOD: WithdrawForm = {
  amount: '50',
  cardNumber: '4111 1111 1111 1111',
  cardHolder: 'IVAN IVANOV',
  cardExpiry: '12/28',
};

describe('input shaping (§5)', () => {
  it('amounts take digits with at most one decimal point, a comma read as the point', () => {
    expect(shapeAmount('')).toBe('');
    expect(shapeAmount('25')).toBe('25');
    expect(shapeAmount('25.5')).toBe('25.5');
    expect(shapeAmount('25,75')).toBe('25.75');
    expect(shapeAmount('25.5.1')).toBeNull();
    expect(shapeAmount('25a')).toBeNull();
    expect(shapeAmount('-5')).toBeNull();
    expect(shapeAmount('1.999')).toBeNull();
  });

  it('the card number keeps digits in groups of 4, at most 19 characters', () => {
    expect(shapeCardNumber('4111-1111x1111 1111')).toBe('4111 1111 1111 1111');
    expect(shapeCardNumber('41111')).toBe('4111 1');
    expect(shapeCardNumber('4111111111111111999').length).toBe(19);
  });

  it('the holder is upper case; the expiry gets its slash after 2 digits and stops at 5 characters', () => {
    expect(shapeCardHolder('ivan ivanov')).toBe('IVAN IVANOV');
    expect(shapeCardExpiry('1')).toBe('1');
    expect(shapeCardExpiry('12')).toBe('12');
    expect(shapeCardExpiry('123')).toBe('12/3');
    expect(shapeCardExpiry('12/289')).toBe('12/28');
    expect(shapeCardExpiry('ab0')).toBe('0');
  });
});

describe('withdrawal checks in the order of §5, in ru and en', () => {
  const check = (form: Partial<WithdrawForm>, balance = 100) => withdrawProblem({ ...GOOD, ...form }, balance, TODAY);

  it('1. amount ≤ 0 comes first, even with every other field wrong', () => {
    const p = check({ amount: '0', cardNumber: '', cardHolder: '', cardExpiry: '' });
    expect(text(p, 'ru')).toBe('Сумма должна быть больше 0');
    expect(text(p, 'en')).toBe('The amount must be greater than 0');
    expect(text(check({ amount: '' }), 'ru')).toBe('Сумма должна быть больше 0');
  });

  it('the $10 minimum (changed), then the balance with both amounts', () => {
    expect(text(check({ amount: '9.99', cardNumber: '' }), 'ru')).toBe('Минимальная сумма вывода: $10');
    expect(text(check({ amount: '9.99' }), 'en')).toBe('Minimum withdrawal amount: $10');
    const over = check({ amount: '150', cardNumber: '' }, 100);
    expect(text(over, 'ru')).toBe('Недостаточно средств на счете. Доступно: $100.00, запрошено: $150.00');
    expect(text(over, 'en')).toBe('Insufficient funds on the account. Available: $100.00, requested: $150.00');
  });

  it('then the card number: too short, or failing the Luhn check', () => {
    expect(text(check({ cardNumber: '4111 1111 1111', cardHolder: '' }), 'ru')).toBe('Неверный номер карты');
    expect(text(check({ cardNumber: '4111 1111 1111 1112' }), 'en')).toBe('Invalid card number');
  });

  it('then the holder, then the expiry', () => {
    expect(text(check({ cardHolder: '  ', cardExpiry: '01/20' }), 'ru')).toBe('Укажите имя держателя карты');
    expect(text(check({ cardHolder: '' }), 'en')).toBe('Enter the card holder name');
    expect(text(check({ cardExpiry: '10/26' }), 'ru')).toBe('Срок действия карты истек');
    // A half-typed or impossible expiry is not an expired card (issue 27 item 6).
    expect(text(check({ cardExpiry: '1' }), 'en')).toBe('The card expiry is MM/YY, with a month from 01 to 12');
    expect(text(check({ cardExpiry: '13/29' }), 'ru')).toBe('Срок действия карты — в формате ММ/ГГ, месяц от 01 до 12');
    expect(check({ cardExpiry: '11/26' })).toBeNull();
  });

  it('a holder is a name: no emoji, digits or symbols (issue 27 item 6)', () => {
    expect(text(check({ cardHolder: 'IVAN 😀' }), 'ru')).toBe(
      'Имя держателя карты — только буквы, пробел, точка, дефис и апостроф, как на карте',
    );
    expect(check({ cardHolder: "ANNA O'NEIL-SMITH" })).toBeNull();
  });

  it('a complete, valid request passes', () => {
    expect(check({})).toBeNull();
  });
});

describe('deposit checks (§5), in ru and en', () => {
  it('amount missing or under $10 first, then the method', () => {
    expect(text(depositProblem('', null), 'ru')).toBe('Минимальная сумма пополнения: $10');
    expect(text(depositProblem('9', '1'), 'en')).toBe('Minimum top-up amount: $10');
    expect(text(depositProblem('10', null), 'ru')).toBe('Выберите способ пополнения');
    expect(text(depositProblem('10', null), 'en')).toBe('Choose a top-up method');
    expect(depositProblem('10', '1')).toBeNull();
  });

  it('an amount over the maximum says so, not "minimum $10" (issue 27 item 6)', () => {
    expect(text(depositProblem('99999999999999', '1'), 'ru')).toBe('Максимальная сумма пополнения: $1,000,000.00');
    expect(text(depositProblem('1000000.01', '1'), 'en')).toBe('Maximum top-up amount: $1,000,000.00');
    expect(depositProblem('1000000', '1')).toBeNull();
  });
});

describe('trade amount checks (§3, §5), in ru and en', () => {
  const base = { amount: '25', balance: 100, minTrade: 1, maxTrade: 1000, tradingEnabled: true, price: 1.085 };

  it('a suspended account comes first', () => {
    const p = tradeProblem({ ...base, amount: '', tradingEnabled: false });
    expect(text(p, 'ru')).toBe('Торговля по счету приостановлена');
    expect(text(p, 'en')).toBe('Trading on this account is suspended');
  });

  it('then the $1 minimum, the account limit, the balance, the price', () => {
    expect(text(tradeProblem({ ...base, amount: '' }), 'ru')).toBe('Минимальная сумма сделки: $1');
    expect(text(tradeProblem({ ...base, amount: '0.5' }), 'en')).toBe('Minimum trade amount: $1');
    const max = tradeProblem({ ...base, amount: '60', maxTrade: 50, balance: 10 });
    expect(text(max, 'ru')).toBe('Максимальная сумма сделки: $50');
    expect(text(max, 'en')).toBe('Maximum trade amount: $50');
    expect(text(tradeProblem({ ...base, amount: '101', price: null }), 'ru')).toBe('Недостаточно средств');
    expect(text(tradeProblem({ ...base, amount: '101' }), 'en')).toBe('Insufficient funds');
    expect(text(tradeProblem({ ...base, price: null }), 'ru')).toBe('Котировка недоступна, попробуйте позже');
    expect(tradeProblem(base)).toBeNull();
  });

  it('a balance that did not load never enables the buttons', () => {
    expect(tradeProblem({ ...base, balance: null, balanceError: true })?.code).toBe('balance_unavailable');
  });

  it('a balance still loading is shown as loading, never as "insufficient funds" (issue 15 defect 6)', () => {
    const loading = tradeProblem({ ...base, balance: null });
    expect(loading?.code).toBe('balance_loading');
    expect(isLoadingProblem(loading)).toBe(true);
    expect(text(loading, 'ru')).toBe('Загрузка баланса…');
    expect(text(loading, 'ru')).not.toContain('Недостаточно');
    expect(isLoadingProblem(tradeProblem({ ...base, amount: '101' }))).toBe(false);
  });
});

describe('the maximum stake (issue 15 defect 5)', () => {
  it('is the smaller of the balance and the account limit, and says which binds', () => {
    expect(tradeMaximum(1650, 1000)).toEqual({ amount: 1000, binds: 'limit' });
    expect(tradeMaximum(100, 1000)).toEqual({ amount: 100, binds: 'balance' });
    expect(tradeMaximum(1000, 1000)).toEqual({ amount: 1000, binds: 'limit' });
    expect(tradeMaximum(0, 1000)).toEqual({ amount: 0, binds: 'balance' });
    expect(tradeMaximum(null, 1000)).toBeNull();
  });

  it('reads in words in ru and en', () => {
    const tr = (lng: 'ru' | 'en') => translators[lng] as unknown as (k: string, o?: object) => string;
    expect(tr('ru')('panel.maxLimit', { amount: '$1,000.00' })).toBe('Максимум: $1,000.00 — лимит счета на сделку');
    expect(tr('en')('panel.maxBalance', { amount: '$100.00' })).toBe('Maximum: $100.00 — your balance limits it');
  });
});

describe('where an open trade stands now (issue 15 defect 1)', () => {
  const call = { direction: 'call' as const, amount: 25, strike_price: 1.085, payout_percentage: 85 };
  const put = { ...call, direction: 'put' as const };

  it('follows the market by the D1 rule: a call above the strike is in the money, below it is not', () => {
    expect(tradeStanding(call, 1.08501)).toEqual({ status: 'won', result: 21.25, payout: 46.25 });
    expect(tradeStanding(call, 1.08499)).toEqual({ status: 'lost', result: -25, payout: 0 });
    expect(tradeStanding(call, 1.085)).toEqual({ status: 'tie', result: 0, payout: 25 });
    expect(tradeStanding(put, 1.08499)?.status).toBe('won');
    expect(tradeStanding(put, 1.08501)?.status).toBe('lost');
  });

  it('agrees with the shared settleTrade on every price, as the server settles', () => {
    for (const price of [1.08, 1.0849999, 1.085, 1.0850001, 1.09]) {
      for (const trade of [call, put]) {
        const shared = settleTrade({
          direction: trade.direction,
          strikePrice: trade.strike_price,
          closePrice: price,
          amountCents: 2500,
          payoutPercentage: 85,
        });
        expect(tradeStanding(trade, price)?.status).toBe(shared.status);
        expect(tradeStanding(trade, price)?.result).toBe(shared.profitCents / 100);
      }
    }
  });

  it('says nothing without a current price', () => {
    expect(tradeStanding(call, null)).toBeNull();
    expect(tradeStanding(call, undefined)).toBeNull();
    expect(tradeStanding(call, Number.NaN)).toBeNull();
  });

  it('signs the result as the card shows it', () => {
    expect(signedUsd(21.25)).toBe('+$21.25');
    expect(signedUsd(-25)).toBe('-$25.00');
    expect(signedUsd(0)).toBe('$0.00');
  });
});

describe('figures shown on the panel and the open trades', () => {
  it('potential profit is stake × the account payout / 100, in whole cents as the server pays', () => {
    expect(potentialProfit('25', 85)).toBe(21.25);
    expect(potentialProfit('10', 70)).toBe(7);
    expect(potentialProfit('0.99', 85)).toBe(0.84);
    expect(potentialProfit('', 85)).toBe(0);
  });

  it('the countdown reads Xд Yч, Xч Yм, m:ss, then Nс (D10), with its colours', () => {
    expect(formatCountdown(2 * 86400 + 3 * 3600 + 5)).toBe('2д 3ч');
    expect(formatCountdown(3600 + 125)).toBe('1ч 2м');
    expect(formatCountdown(125)).toBe('2:05');
    expect(formatCountdown(60)).toBe('1:00');
    expect(formatCountdown(59)).toBe('59с');
    expect(formatCountdown(-3)).toBe('0с');
    expect([countdownColour(31), countdownColour(30), countdownColour(11), countdownColour(10)]).toEqual([
      'green',
      'yellow',
      'yellow',
      'red',
    ]);
  });
});
