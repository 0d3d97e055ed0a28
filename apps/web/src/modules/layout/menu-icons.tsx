import {
  IconCalendar,
  IconChartCandle,
  IconCreditCard,
  IconFileDollar,
  IconHistory,
  IconHome,
  IconInbox,
  IconListDetails,
  IconMailForward,
  IconPlugConnected,
  IconShieldLock,
  IconUserCog,
  IconUsers,
  IconWallet,
  type Icon,
} from '@tabler/icons-react';

/** One icon per side menu path of §2.2. */
export const MENU_ICONS: Record<string, Icon> = {
  '/crm/dashboard': IconHome,
  '/crm/clients': IconUsers,
  '/crm/inbox': IconInbox,
  '/crm/calendar': IconCalendar,
  '/crm/applications': IconFileDollar,
  '/crm/history': IconHistory,
  '/crm/integration': IconPlugConnected,
  '/crm/staff': IconUserCog,
  '/crm/trading-management': IconChartCandle,
  '/crm/trading-accounts': IconWallet,
  '/crm/access': IconShieldLock,
  '/crm/audit': IconListDetails,
  '/crm/outbox': IconMailForward,
};

export const FALLBACK_MENU_ICON: Icon = IconCreditCard;
