import { ROLES, type Role } from '@brokerage/shared';

/** §6: each role's label; any other role reads 'Менеджер' (Manager). */
export function roleLabelKey(role: string) {
  const known = (ROLES as readonly string[]).includes(role) ? (role as Role) : 'manager';
  return `roles.${known}` as const;
}
