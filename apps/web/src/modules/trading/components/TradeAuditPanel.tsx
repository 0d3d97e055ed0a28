import { compareDecimal, findAsset, type TradeAudit } from '@brokerage/shared';
import { Alert, Anchor, Button, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconDownload } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadFile } from '../../../lib/download';
import { formatDateTime } from '../../../lib/format';
import { clientProofUrl } from '../../price-proof/api/price-log';
import { clientAuditUrl, useTradeAuditQuery } from '../api';
import { TradeAuditContext, type AuditedTrade } from '../audit-context';
import { latestQuote, usePriceVersion } from '../price-feed';
import { formatPrice, usd } from '../rules';
import { TradeAuditChart } from './TradeAuditChart';

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const op = (a: number, b: number) => (compareDecimal(a, b) > 0 ? '>' : compareDecimal(a, b) < 0 ? '<' : '=');

/**
 * The result worked out in numbers from what the server stored (D1: shown, never decided here): '1.08412 > 1.08390 →
 * call won, +$21.25'. For an open trade, the comparison with the current price.
 */
function resultLine(audit: TradeAudit, decimals: number, current: number | null, t: TFunction<'platform'>): string {
  const { trade } = audit;
  const p = (v: number) => formatPrice(v, decimals);
  const direction = t(`audit.direction.${trade.direction}`);
  const strike = p(trade.strike_price);
  if (trade.status === 'voided') return t('audit.result.voided', { amount: usd(trade.amount) });
  if (trade.status === 'no_price')
    return t('audit.result.noPrice', { seconds: audit.rule.gap_seconds, amount: usd(trade.amount) });
  if (trade.status === 'active' || trade.close_price === null) {
    if (current === null) return t('audit.result.openNoPrice');
    const move = compareDecimal(current, trade.strike_price);
    if (move === 0) return t('audit.result.openTie', { current: p(current), strike });
    const winning = trade.direction === 'call' ? move > 0 : move < 0;
    return t(winning ? 'audit.result.openWinning' : 'audit.result.openLosing', {
      current: p(current),
      op: op(current, trade.strike_price),
      strike,
      direction,
    });
  }
  const close = p(trade.close_price);
  if (trade.status === 'tie') return t('audit.result.tie', { close, strike, amount: usd(trade.amount) });
  return t(trade.status === 'won' ? 'audit.result.won' : 'audit.result.lost', {
    close,
    op: op(trade.close_price, trade.strike_price),
    strike,
    direction,
    amount: usd(trade.status === 'won' ? (trade.profit_loss ?? 0) : trade.amount),
  });
}

function AuditBody({ audit, proofUrl, timeZone }: { audit: TradeAudit; proofUrl: string | null; timeZone: string }) {
  const { t } = useTranslation('platform');
  const when = (iso: string) => formatDateTime(iso, timeZone, { seconds: true });
  usePriceVersion();
  const { trade } = audit;
  const decimals = findAsset(trade.asset)?.decimals ?? 5;
  const labels = useMemo(
    () => ({ strike: t('audit.strike'), close: t('audit.close'), expiry: t('audit.expiry') }),
    [t],
  );
  const live = trade.status === 'active' ? (latestQuote(trade.asset)?.price ?? null) : null;
  const current = live ?? audit.ticks.at(-1)?.price ?? null;
  // The public quote history of the strike's window: the same stored ticks, for anyone (issue 14 item 2).
  const strike = Date.parse(trade.strike_at);
  const strikeCheck =
    `/api/prices/${encodeURIComponent(trade.asset)}/ticks?from=${new Date(strike - 30_000).toISOString()}` +
    `&to=${new Date(strike + 30_000).toISOString()}`;
  const colour = trade.status === 'won' ? 'teal' : trade.status === 'lost' ? 'red' : undefined;
  return (
    <Stack gap="sm">
      {audit.ticks.length > 0 ? (
        <TradeAuditChart audit={audit} decimals={decimals} labels={labels} timeZone={timeZone} />
      ) : (
        <Text c="dimmed" size="sm" data-testid="audit-no-ticks">
          {t('audit.noTicks')}
        </Text>
      )}
      <Stack gap={2} data-testid="audit-legend">
        <Text size="xs" c="dimmed" data-testid="audit-zone">
          {t('audit.zone', { zone: timeZone })}
        </Text>
        <Text size="sm" c="yellow.7" data-testid="audit-strike">
          ▲ {t('audit.strikeLine', { price: formatPrice(trade.strike_price, decimals), time: when(trade.strike_at) })}
        </Text>
        <Text size="sm" c="pink.7" data-testid="audit-close">
          ▼{' '}
          {trade.close_price !== null && trade.close_at !== null
            ? t('audit.closeLine', { price: formatPrice(trade.close_price, decimals), time: when(trade.close_at) })
            : t('audit.notClosed')}
        </Text>
        <Text size="sm" c="dimmed" data-testid="audit-expiry">
          ■ {t('audit.expiryLine', { time: when(trade.expires_at) })}
        </Text>
      </Stack>
      <div>
        <Title order={6}>{t('audit.ruleTitle')}</Title>
        <Text size="sm" data-testid="audit-rule" data-compare={audit.rule.compare}>
          {t(`audit.rule.${audit.rule.direction}`)} {t('audit.rule.gap', { seconds: audit.rule.gap_seconds })}
        </Text>
      </div>
      <div>
        <Title order={6}>{t('audit.resultTitle')}</Title>
        <Text fw={700} ff="monospace" c={colour} data-testid="audit-result" data-status={trade.status}>
          {resultLine(audit, decimals, current, t)}
        </Text>
        {audit.no_price && (
          <Text size="sm" c="dimmed" data-testid="audit-no-price">
            {audit.no_price.last_tick_at
              ? t('audit.noPriceLast', { time: when(audit.no_price.last_tick_at) })
              : t('audit.noPriceNone')}
          </Text>
        )}
      </div>
      <Text size="xs" c="dimmed">
        {t('audit.ticks', { count: audit.ticks.length })}
        {audit.candles.length > 0 ? ` · ${t('audit.candles')}` : ''}
      </Text>
      {proofUrl !== null && trade.status !== 'active' && (
        <ProofDownload key={trade.id} url={proofUrl} tradeId={trade.id} />
      )}
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {t('audit.check')}{' '}
        <Anchor href={strikeCheck} target="_blank" rel="noopener" size="xs" ff="monospace" data-testid="audit-check">
          GET {strikeCheck}
        </Anchor>
      </Text>
    </Stack>
  );
}

/**
 * 'Скачать доказательство' (issue 30 §2): the trade's proof file — its ticks with their inclusion proofs against a
 * signed head of the price log — which anyone checks on /verify or with `npx brokerage-verify`. A refusal (409 while
 * no published head covers the trade yet) shows the server's detail.
 */
function ProofDownload({ url, tradeId }: { url: string; tradeId: number }) {
  const { t } = useTranslation('platform');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setFailure(null);
    const refused = await downloadFile(url, `trade-${tradeId}-proof.json`);
    setBusy(false);
    if (refused !== null) setFailure(refused || t('audit.proofFailed'));
  };
  return (
    <Stack gap={6} data-testid="audit-proof">
      <Group gap="sm" wrap="wrap">
        <Button
          variant="light"
          size="sm"
          leftSection={<IconDownload size={14} />}
          loading={busy}
          onClick={() => void download()}
          data-testid="audit-proof-download"
        >
          {t('audit.downloadProof')}
        </Button>
        <Text size="xs" c="dimmed">
          {t('audit.proofHint')}{' '}
          <Anchor href="/verify" target="_blank" rel="noopener" size="xs">
            {t('audit.proofVerify')}
          </Anchor>
        </Text>
      </Group>
      {failure !== null && (
        <Alert color="red" withCloseButton onClose={() => setFailure(null)} data-testid="audit-proof-error">
          {failure}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * The contract audit of one trade (issue 14) in a modal (full screen on a phone): the stored ticks as a chart with
 * the strike, close and expiry marked, the settlement rule and the result in numbers, and (once settled or voided)
 * the trade's proof file. `url` is the audit call — the client's own or the staff's scoped one — or null when closed;
 * `proofUrl` the matching proof call.
 */
export function TradeAuditPanel({
  url,
  proofUrl,
  title,
  onClose,
  timeZone = LOCAL_ZONE,
}: {
  url: string | null;
  proofUrl: string | null;
  title: string;
  onClose: () => void;
  /** The zone its times are shown in, named above them: the client's own; staff screens pass the business zone (D19). */
  timeZone?: string;
}) {
  const { t } = useTranslation('platform');
  const phone = useMediaQuery('(max-width: 48em)');
  const query = useTradeAuditQuery(url);
  return (
    <Modal
      opened={url !== null}
      onClose={onClose}
      title={<Text fw={700}>{title}</Text>}
      size="xl"
      fullScreen={phone}
      closeButtonProps={{ 'aria-label': t('audit.closeButton') }}
      data-testid="trade-audit"
    >
      <div data-testid="trade-audit-panel">
        {query.isError ? (
          <Alert color="red" title={t('audit.error')}>
            <Button size="xs" variant="light" onClick={() => void query.refetch()}>
              {t('common.retry')}
            </Button>
          </Alert>
        ) : !query.data ? (
          <Group justify="center" py="xl">
            <Loader size="sm" />
            <Text c="dimmed" size="sm">
              {t('common.loading')}
            </Text>
          </Group>
        ) : (
          <AuditBody audit={query.data} proofUrl={proofUrl} timeZone={timeZone} />
        )}
      </div>
    </Modal>
  );
}

/** The live trading screen's audit: trade cards open it through TradeAuditContext; one panel for the screen. */
export function TradeAuditHost({ children }: { children: ReactNode }) {
  const { t } = useTranslation('platform');
  const [open, setOpen] = useState<AuditedTrade | null>(null);
  const opener = useMemo(() => (trade: AuditedTrade) => setOpen({ id: trade.id, asset: trade.asset }), []);
  return (
    <TradeAuditContext.Provider value={opener}>
      {children}
      <TradeAuditPanel
        url={open ? clientAuditUrl(open.id) : null}
        proofUrl={open ? clientProofUrl(open.id) : null}
        title={open ? t('audit.title', { asset: open.asset, id: open.id }) : ''}
        onClose={() => setOpen(null)}
      />
    </TradeAuditContext.Provider>
  );
}
