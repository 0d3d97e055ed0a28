import { notificationKeys } from '../modules/notifications/keys';
import { tradingAdminKeys } from '../modules/trading-admin/keys';
import { tradingPlatformKeys } from '../modules/trading-platform/keys';
import { tradingKeys } from '../modules/trading/keys';
import { withdrawalKeys } from '../modules/withdrawal-requests/keys';

type QueryKeyPrefix = readonly unknown[];

/**
 * The query keys each per-user event of the live socket makes stale (prefixes, from the modules' key factories, so an
 * event cannot name a key no query uses: apps/web/test/query-keys.test.ts checks it). Unknown ones are simply not
 * cached yet.
 */
export const STALE_KEYS: Readonly<Record<string, readonly QueryKeyPrefix[]>> = {
  'trade.opened': [tradingKeys.all, tradingAdminKeys.all],
  'trade.settled': [tradingKeys.all, tradingAdminKeys.all],
  'balance.changed': [tradingKeys.all, tradingAdminKeys.all, withdrawalKeys.all],
  'message.new': [tradingPlatformKeys.allMessages, tradingKeys.messages],
  'notification.new': [notificationKeys.all],
};

/** What a stream's `refetch` makes stale: everything its events could have. */
export function staleKeysOfStream(stream: string): readonly QueryKeyPrefix[] {
  if (stream.startsWith('account:')) return STALE_KEYS['balance.changed']!;
  if (stream === 'messages') return STALE_KEYS['message.new']!;
  return STALE_KEYS['notification.new']!;
}
