import { CRM_MENU } from '@brokerage/shared';
import { menuLabelKey, type MenuLabelKey } from './menu-label';

export type PageTitleKey = 'layout.clientCard' | 'layout.crm' | MenuLabelKey;

/**
 * §2.2 mobile header title: /crm/clients/{id} is the client card, '/' is titled like the dashboard, a menu path (or a
 * page under it) by its menu label, anything else 'CRM'.
 */
export function pageTitleKey(pathname: string): PageTitleKey {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/') return 'menu.dashboard';
  if (/^\/crm\/clients\/[^/]+$/.test(path)) return 'layout.clientCard';
  const exact = CRM_MENU.find((entry) => entry.path === path);
  if (exact) return menuLabelKey(exact.labelKey);
  const parent = CRM_MENU.find((entry) => path.startsWith(`${entry.path}/`));
  return parent ? menuLabelKey(parent.labelKey) : 'layout.crm';
}
