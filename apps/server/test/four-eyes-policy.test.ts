import { describe, expect, it } from 'vitest';
import { needsSecondPerson, secondPersonBlock, type FourEyesActor } from '../src/platform/access/four-eyes.js';

/** The one four-eyes policy (D20) that withdrawals, manual credits and voids ask. */
describe('the four-eyes policy', () => {
  const admin = { id: 'a', role: 'admin' as const };
  const manager = { id: 'm', role: 'manager' as const };
  const system = { id: null, role: 'system' as const };

  it('asks for a second person once the window with this amount passes the threshold', () => {
    const at = (cents: number, windowCents: number, thresholdCents = 100_000, actor: FourEyesActor = admin) =>
      needsSecondPerson({ actor, cents, windowCents, thresholdCents });
    expect(at(100_000, 0)).toBe(false); // at the threshold: one person
    expect(at(100_001, 0)).toBe(true);
    expect(at(60_000, 40_000)).toBe(false);
    expect(at(60_000, 40_001)).toBe(true); // split in parts gains nothing
    expect(at(500_000, 0, 0)).toBe(false); // threshold 0: the rule is off
    expect(at(500_000, 0, 100_000, system)).toBe(false); // the command line and the seed
    expect(at(0, 500_000)).toBe(false); // nothing moves
  });

  it('never lets the first person be the second, and only finance.approve may be it', () => {
    expect(secondPersonBlock(admin, 'a')).toBe('own_request');
    expect(secondPersonBlock(admin, 'someone-else')).toBeNull();
    expect(secondPersonBlock(admin, null)).toBeNull();
    expect(secondPersonBlock(manager, 'someone-else')).toBe('not_an_approver');
    expect(secondPersonBlock(manager, 'm')).toBe('own_request');
    expect(secondPersonBlock(system, 'someone-else')).toBeNull();
  });
});
