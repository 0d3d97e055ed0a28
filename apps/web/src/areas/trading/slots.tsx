import { Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { loadBackOfficeTranslations } from '../../i18n';
import type { CurrentUser } from '../../modules/auth/api/session';
import type { TradingSlots } from '../../modules/trading/components/TradingScreen';

// Loaded when first shown, so the first chart does not wait for them.
const EconomicCalendarView = lazy(() =>
  import('../../modules/market-info').then((m) => ({ default: m.EconomicCalendarView })),
);
const FundamentalsView = lazy(() => import('../../modules/market-info').then((m) => ({ default: m.FundamentalsView })));
// The bell speaks the back office's texts: it shows once they are here, never with bare keys.
const NotificationsBell = lazy(() =>
  Promise.all([import('../../modules/notifications/components/NotificationsBell'), loadBackOfficeTranslations()]).then(
    ([m]) => ({ default: m.NotificationsBell }),
  ),
);

/**
 * The views the trading screen takes from other modules: the economic calendar and fundamental analysis
 * (modules/market-info, §2.8, §2.9) behind the 'Календарь' and 'Анализ' buttons, and for non-client roles the staff
 * notifications bell (modules/notifications, D10).
 */
export function tradingSlots(user: CurrentUser | null): TradingSlots {
  return {
    calendar: (
      <Suspense fallback={<Loader size="sm" />}>
        <EconomicCalendarView />
      </Suspense>
    ),
    fundamental: (asset) => (
      <Suspense fallback={<Loader size="sm" />}>
        <FundamentalsView asset={asset} />
      </Suspense>
    ),
    bell:
      user && user.role !== 'client' ? (
        <Suspense fallback={null}>
          <NotificationsBell timeZone={user.business_timezone} />
        </Suspense>
      ) : undefined,
  };
}
