import { Container, Paper, Stack, Text, Title } from '@mantine/core';
import { Navigate, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../modules/auth/api/session';
import { useDemoAccount, useLiveAccount } from '../../modules/trading/account';
import { PriceChart } from '../../modules/trading/components/PriceChart';
import { TradeAuditHost } from '../../modules/trading/components/TradeAuditPanel';
import { TradingScreen, type TradingSlots } from '../../modules/trading/components/TradingScreen';
import { usePriceVersion } from '../../modules/trading/price-feed';
import { tradingSlots } from './slots';
import { prefetchCandles } from '../../modules/trading/api';
import { startPriceFeed } from '../../modules/trading/price-feed';

// The first chart is EURUSD at 1 minute (§2.4): its candles and the live feed start as soon as this chunk loads.
prefetchCandles('EURUSD', '1m');
startPriceFeed();

function LiveTrading({ slots }: { slots: TradingSlots }) {
  const { data: user } = useSession();
  const account = useLiveAccount();
  // Issue 14: a click on any of the client's trades opens its contract audit (not in demo mode: nothing stored).
  return (
    <TradeAuditHost>
      <TradingScreen account={account} user={user ?? null} slots={slots} />
    </TradeAuditHost>
  );
}

function DemoTrading({ slots }: { slots: TradingSlots }) {
  const { data: user } = useSession();
  const account = useDemoAccount();
  return <TradingScreen account={account} user={user ?? null} slots={slots} />;
}

/** /chart-test (§2.1): the EURUSD chart alone, from the server's candles and ticks. */
function ChartTest() {
  const { t } = useTranslation('platform');
  usePriceVersion();
  return (
    <Container size="lg" py="md">
      <Stack>
        <Title order={2}>{t('chartTest.title')}</Title>
        <Text c="dimmed" size="sm">
          {t('chartTest.note')}
        </Text>
        <Paper withBorder p="sm">
          <PriceChart symbol="EURUSD" decimals={5} trades={[]} height={480} />
        </Paper>
      </Stack>
    </Container>
  );
}

/**
 * The client trading area (its own chunk): /trading for a signed-in user (anonymous → '/', §2.1 Reading B); /demo for
 * anyone (D16); /chart-test. A client trades on the real account; staff, who have no trading account, see the screen
 * in demo mode with their notifications bell (D10).
 */
export default function TradingArea() {
  const { pathname } = useLocation();
  const { data: user } = useSession();
  const slots = tradingSlots(user ?? null);
  if (pathname.startsWith('/chart-test')) return <ChartTest />;
  if (pathname.startsWith('/demo')) return <DemoTrading slots={slots} />;
  if (!user) return <Navigate to="/" replace />;
  if (user.role !== 'client') return <DemoTrading slots={slots} />;
  return <LiveTrading slots={slots} />;
}
