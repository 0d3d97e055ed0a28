import { ASSIGNABLE_STAFF_ROLES, type Role } from '@brokerage/shared';

/**
 * Roles the viewer may give from the staff page (§2.12): the assignable roles, superadmin only for a superadmin
 * viewer. `current` keeps a target's present role selectable so an edit never silently changes it.
 */
export function assignableRolesFor(viewer: Role, current?: string): string[] {
  const roles: string[] = ASSIGNABLE_STAFF_ROLES.filter((role) => role !== 'superadmin' || viewer === 'superadmin');
  if (current && !roles.includes(current) && (ASSIGNABLE_STAFF_ROLES as readonly string[]).includes(current)) {
    roles.push(current);
  }
  return roles;
}
