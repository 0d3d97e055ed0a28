import { CRM_MENU, can, type Permission, type Role } from '@brokerage/shared';

/**
 * The permission each /crm section needs (§6): the menu's.
 * The staff page is left out on purpose: §2.12 answers other roles with its own 'Access denied' screen.
 */
const SECTION_PERMISSIONS: readonly { path: string; permission: Permission }[] = CRM_MENU.filter(
  (entry) => entry.path !== '/crm/staff',
);

export function sectionPermission(pathname: string): Permission | null {
  const section = SECTION_PERMISSIONS.find((entry) => pathname === entry.path || pathname.startsWith(`${entry.path}/`));
  return section ? section.permission : null;
}

/** Whether the role may open the path; a section it lacks sends it home (e.g. sales_manager on /crm/applications). */
export function mayOpen(role: Role, pathname: string): boolean {
  const permission = sectionPermission(pathname);
  return permission === null || can(role, permission);
}
