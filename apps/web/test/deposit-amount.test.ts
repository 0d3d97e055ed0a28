import { depositAmount } from '@brokerage/shared';
import { describe, expect, it } from 'vitest';
import { depositAmountProblem, MAX_DEPOSIT_DOLLARS } from '../src/modules/clients/deposit-amount';

describe('the CRM deposit form says why an amount cannot be saved (issue 15, defect 9)', () => {
  it('names the problem of a negative, zero, huge or over-precise amount', () => {
    expect(depositAmountProblem(-5)).toBe('min');
    expect(depositAmountProblem(0)).toBe('min');
    expect(depositAmountProblem(1e20)).toBe('max');
    expect(depositAmountProblem('123456789012345678901234')).toBe('max');
    expect(depositAmountProblem(1.005)).toBe('decimals');
  });
  it('is silent for nothing typed and for every amount the server accepts', () => {
    expect(depositAmountProblem('')).toBeNull();
    for (const ok of [0.01, 1, 250.5, 1999.99, MAX_DEPOSIT_DOLLARS]) {
      expect(depositAmountProblem(ok), String(ok)).toBeNull();
      expect(depositAmount.safeParse(ok).success, String(ok)).toBe(true);
    }
  });
  it('refuses exactly what the server refuses', () => {
    for (const bad of [-1, 0, 0.001, 1.005, MAX_DEPOSIT_DOLLARS + 1]) {
      expect(depositAmountProblem(bad), String(bad)).not.toBeNull();
      expect(depositAmount.safeParse(bad).success, String(bad)).toBe(false);
    }
  });
});
