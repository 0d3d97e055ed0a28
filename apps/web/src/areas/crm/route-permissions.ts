import { CRM_MENU, canAny, type MenuEntry, type Role } from '@brokerage/shared';

/**
 * The permission each /crm section needs (§6): the menu's.
 * The staff page is left out on purpose: §2.12 answers other roles with its own 'Access denied' screen.
 */
const SECTION_PERMISSIONS: readonly MenuEntry[] = CRM_MENU.filter((entry) => entry.path !== '/crm/staff');

export function sectionPermission(pathname: string): MenuEntry['permission'] | null {
  const section = SECTION_PERMISSIONS.find((entry) => pathname === entry.path || pathname.startsWith(`${entry.path}/`));
  return section ? section.permission : null;
}

/** Whether the role may open the path. */
export function mayOpen(role: Role, pathname: string): boolean {
  const permission = sectionPermission(pathname);
  return permission === null || canAny(role, permission);
}

/** back-office.md §2.1: the sales roles opening the withdrawal requests or the deposit history go to the dashboard. */
const SALES_REDIRECTS: readonly string[] = ['/crm/applications', '/crm/history'];

/**
 * What a role sees on a path it may not open: §2.1's quiet redirect for the sales roles on the two money pages it
 * names, and the access-denied page (with a link home) everywhere else.
 */
export function deniedAs(role: Role, pathname: string): 'redirect' | 'denied' {
  const sales = role === 'sales_manager' || role === 'team_lead_sales';
  const named = SALES_REDIRECTS.some((path) => pathname === path || pathname.startsWith(`${path}/`));
  return sales && named ? 'redirect' : 'denied';
}
