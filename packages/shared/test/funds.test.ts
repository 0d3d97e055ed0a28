import { describe, expect, it } from 'vitest';
import {
  cardDigits,
  cardExpired,
  checkWithdrawal,
  luhnValid,
  maskCard,
  parseCardExpiry,
  updateDepositMethodSchema,
  validCardNumber,
  withdrawRequestSchema,
} from '../src/index.js';

const TODAY = { year: 2026, month: 11 };
const OK = { amount: 50, card_number: '4111 1111 1111 1111', card_holder: 'IVAN PETROV', card_expiry: '11/26' };

describe('card rules (client-platform.md §5, D7)', () => {
  it('checks numbers with Luhn, 16 to 19 digits, spaces allowed between them', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(validCardNumber('5555 5555 5555 4444')).toBe(true);
    expect(validCardNumber('6011000990139424')).toBe(true);
    expect(validCardNumber('4222222222222')).toBe(false); // 13 digits: Luhn-valid, too short for §5
    expect(validCardNumber('4111-1111-1111-1111')).toBe(false);
    expect(cardDigits(' 4111 1111 ')).toBe('41111111');
    expect(cardDigits('4111x')).toBeNull();
    expect(maskCard('1234')).toBe('**** **** **** 1234');
  });

  it('reads MM/YY expiries, valid to the end of their month', () => {
    expect(parseCardExpiry('01/30')).toEqual({ month: 1, year: 2030 });
    for (const bad of ['1/30', '13/30', '00/30', '12/2030', '12-30', '']) expect(parseCardExpiry(bad), bad).toBeNull();
    expect(cardExpired({ month: 11, year: 2026 }, TODAY)).toBe(false);
    expect(cardExpired({ month: 10, year: 2026 }, TODAY)).toBe(true);
    expect(cardExpired({ month: 12, year: 2025 }, TODAY)).toBe(true);
    expect(cardExpired({ month: 1, year: 2027 }, TODAY)).toBe(false);
  });

  it('checks a withdrawal in the order of §5 and returns the first failure', () => {
    const codes = (input: Partial<typeof OK>, balance = 10_000) =>
      checkWithdrawal({ ...OK, ...input }, balance, TODAY)?.code ?? null;
    const broken = { card_number: '', card_holder: '', card_expiry: '' };
    expect(codes({ amount: 0, ...broken })).toBe('withdraw_amount_not_positive');
    expect(codes({ amount: 10.001, ...broken })).toBe('withdraw_amount_invalid');
    expect(codes({ amount: 9.99, ...broken })).toBe('withdraw_amount_too_small');
    expect(codes({ amount: 100.01, ...broken })).toBe('withdraw_insufficient_funds');
    expect(codes({ amount: 10, ...broken })).toBe('card_number_invalid');
    expect(codes({ card_holder: ' ', card_expiry: '' })).toBe('card_holder_required');
    expect(codes({ card_expiry: '10/26' })).toBe('card_expired');
    expect(codes({})).toBeNull();
    expect(codes({ amount: 100 })).toBeNull();
    expect(checkWithdrawal({ ...OK, amount: 1234.5 }, 100_000, TODAY)).toEqual({
      code: 'withdraw_insufficient_funds',
      params: { available: '$1,000.00', requested: '$1,234.50' },
    });
    expect(checkWithdrawal({ ...OK, amount: 5 }, 100_000, TODAY)).toEqual({
      code: 'withdraw_amount_too_small',
      params: { min: '$10' },
    });
  });

  it('names the real problem of a withdrawal (issue 27 item 6)', () => {
    const codes = (input: Partial<typeof OK>, balance = 10_000) =>
      checkWithdrawal({ ...OK, ...input }, balance, TODAY)?.code ?? null;
    // A month that does not exist is not an expired card.
    expect(codes({ card_expiry: '13/29' })).toBe('card_expiry_invalid');
    expect(codes({ card_expiry: '00/29' })).toBe('card_expiry_invalid');
    expect(codes({ card_expiry: '1229' })).toBe('card_expiry_invalid');
    expect(codes({ card_expiry: '12/25' })).toBe('card_expired');
    // 1e20 dollars is over the balance, not an amount with too many decimals.
    expect(checkWithdrawal({ ...OK, amount: 1e20 }, 10_000, TODAY)).toEqual({
      code: 'withdraw_insufficient_funds',
      params: { available: '$100.00', requested: '$100,000,000,000,000,000,000.00' },
    });
    expect(codes({ amount: 10.001 })).toBe('withdraw_amount_invalid');
    // The holder is a name: emoji, digits and symbols are refused; accents, Cyrillic, O'NEIL and hyphens are names.
    for (const bad of ['IVAN 😀', 'IVAN2', '<b>IVAN</b>', '-IVAN', 'IVAN@MAIL'])
      expect(codes({ card_holder: bad }), bad).toBe('card_holder_invalid');
    for (const good of ['IVAN PETROV', "O'NEIL", 'J. SMITH-JONES', 'ИВАН ПЕТРОВ', 'JOSÉ NÚÑEZ', 'ÁLVARO'])
      expect(codes({ card_holder: good }), good).toBeNull();
  });

  it('takes no CVV: an unknown field is refused', () => {
    expect(withdrawRequestSchema.safeParse(OK).success).toBe(true);
    const withCvv = withdrawRequestSchema.safeParse({ ...OK, card_cvv: '123' });
    expect(withCvv.success).toBe(false);
    expect(withCvv.error?.issues[0]?.code).toBe('unrecognized_keys');
  });
});

describe('deposit method edits', () => {
  it('takes the toggle alone or an edit with its title', () => {
    expect(updateDepositMethodSchema.safeParse({ enabled: false }).success).toBe(true);
    expect(
      updateDepositMethodSchema.safeParse({ title: 'VISA', description: '', details: '', enabled: true }).success,
    ).toBe(true);
    expect(updateDepositMethodSchema.safeParse({}).success).toBe(false);
    const noTitle = updateDepositMethodSchema.safeParse({ details: 'x' });
    expect(noTitle.error?.issues[0]?.path).toEqual(['title']);
  });
});
