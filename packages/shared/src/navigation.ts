import type { Permission } from './permissions.js';
import { can } from './permissions.js';
import type { Role } from './roles.js';

/**
 * Side menu entries of back-office.md §2.2, in order; `labelKey` is a key of the web's translation files. A section
 * whose parts need different permissions lists them all: any one of them opens it, and the page shows the parts the
 * role may use (trading management: deposit methods with trading.manage, client messages with messages.send).
 */
export interface MenuEntry {
  path: string;
  labelKey: string;
  permission: Permission | readonly Permission[];
}

/** Whether the role holds the permission, or one of the permissions of a list. */
export function canAny(role: Role | null | undefined, permission: Permission | readonly Permission[]): boolean {
  return typeof permission === 'string' ? can(role, permission) : permission.some((p) => can(role, p));
}

export const CRM_MENU: readonly MenuEntry[] = [
  { path: '/crm/dashboard', labelKey: 'menu.dashboard', permission: 'dashboard.view' },
  { path: '/crm/clients', labelKey: 'menu.clients', permission: 'clients.view' },
  // Issue 22 §6: conversations with unread client messages, in the viewer's client scope.
  { path: '/crm/inbox', labelKey: 'menu.inbox', permission: 'clients.view' },
  { path: '/crm/calendar', labelKey: 'menu.calendar', permission: 'calendar.view' },
  { path: '/crm/applications', labelKey: 'menu.applications', permission: 'finance.view' },
  { path: '/crm/history', labelKey: 'menu.history', permission: 'finance.view' },
  { path: '/crm/integration', labelKey: 'menu.integration', permission: 'integration.manage' },
  { path: '/crm/affiliates', labelKey: 'menu.affiliates', permission: 'affiliates.manage' },
  { path: '/crm/staff', labelKey: 'menu.staff', permission: 'staff.manage' },
  // Issue 27 item 12: admin sends client messages (messages.send) but has no trading.manage.
  {
    path: '/crm/trading-management',
    labelKey: 'menu.tradingManagement',
    permission: ['trading.manage', 'messages.send'],
  },
  { path: '/crm/trading-accounts', labelKey: 'menu.tradingAccounts', permission: 'trading.manage' },
  { path: '/crm/access', labelKey: 'menu.access', permission: 'access.manage' },
  { path: '/crm/audit', labelKey: 'menu.audit', permission: 'audit.view' },
  // Issue 22 §1: every message the server wrote, sent or kept (without SMTP_URL).
  { path: '/crm/outbox', labelKey: 'menu.outbox', permission: 'mail.outbox' },
];

export function menuFor(role: Role): MenuEntry[] {
  return CRM_MENU.filter((entry) => canAny(role, entry.permission));
}

/**
 * Where a signed-in user lands (back-office.md §2.1, decisions.md D10): a client on /trading, an admin (who has no
 * dashboard) on /crm/clients, everyone else on /crm/dashboard.
 */
export function homePathFor(role: Role): string {
  if (role === 'client') return '/trading';
  if (!can(role, 'dashboard.view')) return '/crm/clients';
  return '/crm/dashboard';
}
