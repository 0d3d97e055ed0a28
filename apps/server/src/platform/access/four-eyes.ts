import { can, type Role } from '@brokerage/shared';

/**
 * Four eyes on money (decisions.md D20): the one policy of withdrawals, manual credits and trade voids. Whether a
 * staff money action needs a second person, and whether a given person may be that second person. Each module
 * answers it on every row it lists (`can_approve` / `can_confirm` with the reason), so the screens ask the server
 * instead of restating the rule.
 */

/** Who acts: the signed-in staff member, or the command line and the seed (role 'system', exempt from the rule). */
export interface FourEyesActor {
  id: string | null;
  role: Role | 'system';
}

/**
 * Whether moving `cents` for a client needs a second person: it would take what was moved for that client within the
 * rule's window without one (`windowCents`) above the threshold. A threshold of 0 turns the rule off; 'system' is
 * exempt; nothing to move needs nobody.
 */
export function needsSecondPerson(input: {
  actor: FourEyesActor;
  cents: number;
  windowCents: number;
  thresholdCents: number;
}): boolean {
  return fourEyesApplies(input) && input.cents + input.windowCents > input.thresholdCents;
}

/** Whether the rule can apply at all (before its window is read): it is on, a person acts, there is money to move. */
export function fourEyesApplies(input: { actor: FourEyesActor; cents: number; thresholdCents: number }): boolean {
  return input.thresholdCents > 0 && input.actor.role !== 'system' && input.cents > 0;
}

/** Why a person may not give the second agreement: they asked for it themselves, or their role may not approve. */
export type SecondPersonBlock = 'own_request' | 'not_an_approver';

/**
 * Whether `actor` may be the second person on an action `firstPersonId` asked for (or approved first): never the same
 * person, and only a role holding finance.approve ('system' may, as the command line acts for the operator).
 */
export function secondPersonBlock(actor: FourEyesActor, firstPersonId: string | null): SecondPersonBlock | null {
  if (actor.id !== null && firstPersonId !== null && actor.id === firstPersonId) return 'own_request';
  if (actor.role !== 'system' && !can(actor.role, 'finance.approve')) return 'not_an_approver';
  return null;
}
