import type { Notification } from '@brokerage/shared';
import type { TFunction } from 'i18next';
import { formatDate, formatDateTime, formatMoney } from '../../lib/format';

/** §9: under 1 min 'now', under 60 min 'N min. ago', under 1440 min 'N h. ago', otherwise the date. */
export function relativeTime(iso: string, now: number, t: TFunction<'notify'>, timeZone: string): string {
  const minutes = Math.floor((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return t('bell.now');
  if (minutes < 60) return t('bell.minAgo', { count: minutes });
  if (minutes < 1440) return t('bell.hoursAgo', { count: Math.floor(minutes / 60) });
  return formatDate(iso, timeZone);
}

/** The §9 badge: the count, '9+' above 9. */
export function badgeText(unread: number): string {
  return unread > 9 ? '9+' : String(unread);
}

export function notificationTitle(n: Notification, t: TFunction<'notify'>): string {
  return t(`types.${n.type}.title`);
}

export function notificationMessage(n: Notification, t: TFunction<'notify'>, timeZone: string): string {
  const client = n.client_name ?? (n.client_id !== null ? `#${n.client_id}` : '');
  switch (n.type) {
    case 'client_assigned':
      return t('types.client_assigned.message', { client });
    case 'withdrawal_request':
      return t('types.withdrawal_request.message', { client, amount: formatMoney(n.amount ?? 0) });
    case 'deposit_intent':
      return t('types.deposit_intent.message', { client, amount: formatMoney(n.amount ?? 0), method: n.method ?? '' });
    default:
      return t(`types.${n.type}.message`, {
        client,
        title: n.reminder_title ?? '',
        time: n.scheduled_time ? formatDateTime(n.scheduled_time, timeZone) : '',
      });
  }
}
