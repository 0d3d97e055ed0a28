import type { LatestPrice, SiteFacts } from '@brokerage/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../api';
import type { Remote } from '../hooks';

/** §2.2 tabs over the server's catalogue categories; default: currency pairs. */
const TABS = {
  forex: ['forex_major', 'forex_minor'],
  crypto: ['crypto'],
  stocks: ['stocks_us'],
  commodities: ['commodities'],
} as const;
type Tab = keyof typeof TABS;
export const PRICE_REFRESH_SECONDS = 5;

/**
 * The assets table: every price is the trading server's latest (GET /api/prices, refreshed), the change is computed by
 * the server from its stored prices (GET /api/site/facts). The spec's spread column is left out: the platform quotes a
 * single price, so there is no spread to state (docs/decisions.md).
 */
export function AssetsSection({
  prices,
  facts,
  onRegister,
}: {
  prices: Remote<LatestPrice[]>;
  facts: Remote<SiteFacts>;
  onRegister: () => void;
}) {
  const { t, i18n } = useTranslation('site');
  const [tab, setTab] = useState<Tab>('forex');
  const rows = (prices.data ?? []).filter((p) => (TABS[tab] as readonly string[]).includes(p.category));
  const changes = new Map((facts.data?.changes ?? []).map((c) => [c.symbol, c.change_percent]));
  return (
    <section id="assets" className="site-section">
      <div className="site-container">
        <h2>{t('assets.title')}</h2>
        <p className="site-lead">{t('assets.subtitle')}</p>
        <div className="site-tabs" role="tablist" aria-label={t('assets.title')}>
          {(Object.keys(TABS) as Tab[]).map((key) => (
            <button
              key={key}
              type="button"
              role="tab"
              id={`assets-tab-${key}`}
              aria-selected={tab === key}
              aria-controls="assets-panel"
              className={tab === key ? 'active' : undefined}
              onClick={() => setTab(key)}
            >
              {t(`assets.tabs.${key}`)}
            </button>
          ))}
        </div>
        <div id="assets-panel" role="tabpanel" aria-labelledby={`assets-tab-${tab}`} className="site-table-wrap">
          {prices.loading && !prices.data ? (
            <p className="site-muted">{t('assets.loading')}</p>
          ) : prices.error && !prices.data ? (
            <p className="site-error" role="alert">
              {t('assets.error')}{' '}
              <button type="button" className="site-link" onClick={prices.reload}>
                {t('common.retry')}
              </button>
            </p>
          ) : (
            <table className="site-table" data-testid="assets-table">
              <thead>
                <tr>
                  <th scope="col">{t('assets.asset')}</th>
                  <th scope="col">{t('assets.name')}</th>
                  <th scope="col" className="num">
                    {t('assets.price')}
                  </th>
                  <th scope="col" className="num">
                    {t('assets.change')}
                  </th>
                  <th scope="col">
                    <span className="site-sr-only">{t('assets.action')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const change = changes.get(row.symbol);
                  const positive = change != null && change >= 0;
                  return (
                    <tr key={row.symbol} data-symbol={row.symbol}>
                      <th scope="row">{row.symbol}</th>
                      <td>{t(`assetNames.${row.symbol}` as 'assetNames.XAUUSD', { defaultValue: row.name })}</td>
                      <td className="num" data-testid={`price-${row.symbol}`}>
                        {row.price === null ? (
                          <span className="site-muted">{t('assets.noPrice')}</span>
                        ) : (
                          formatNumber(row.price, i18n.language, row.decimals)
                        )}
                      </td>
                      <td className={`num ${change == null ? '' : positive ? 'site-up' : 'site-down'}`}>
                        {change == null ? (
                          '—'
                        ) : (
                          <>
                            <span aria-hidden="true">{positive ? '▲' : '▼'}</span>
                            <span className="site-sr-only">{positive ? t('assets.up') : t('assets.down')}</span>{' '}
                            {formatNumber(Math.abs(change), i18n.language, 2)}%
                          </>
                        )}
                      </td>
                      <td>
                        <button type="button" className="site-btn site-btn-small" onClick={onRegister}>
                          {t('assets.trade')}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
        <p className="site-muted site-small">{t('assets.changeSince', { n: PRICE_REFRESH_SECONDS })}</p>
        <div className="site-center">
          <button type="button" className="site-btn site-btn-outline" onClick={onRegister}>
            {t('assets.viewAll')}
          </button>
        </div>
      </div>
    </section>
  );
}
