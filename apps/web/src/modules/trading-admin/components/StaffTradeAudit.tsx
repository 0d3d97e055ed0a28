import type { AdminTrade } from '@brokerage/shared';
import type { KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { staffProofUrl } from '../../price-proof/api/price-log';
import { useCurrentUser } from '../../auth/current-user';
import { TradeAuditPanel } from '../../trading/components/TradeAuditPanel';

/** The staff's scoped audit call of a trade (issue 14; D5: out of scope is 404). */
export const staffAuditUrl = (trade: Pick<AdminTrade, 'account_id' | 'id'>) =>
  `/api/trading/admin/accounts/${trade.account_id}/trades/${trade.id}/audit`;

/**
 * The client's contract audit panel, opened from the account detail's trade tables (its strings: platform), with the
 * staff's scoped twin of the proof download (issue 30).
 */
export function StaffTradeAudit({ trade, onClose }: { trade: AdminTrade | null; onClose: () => void }) {
  const { t } = useTranslation('platform');
  const user = useCurrentUser();
  return (
    <TradeAuditPanel
      // D19 (issue 27 item 4): staff screens show the business time zone, named, as the tables beside it do.
      timeZone={user.business_timezone}
      url={trade ? staffAuditUrl(trade) : null}
      proofUrl={trade ? staffProofUrl(trade.account_id, trade.id) : null}
      title={trade ? t('audit.title', { asset: trade.asset, id: trade.id }) : ''}
      onClose={onClose}
    />
  );
}

/** Row props that open the audit on a click, Enter or Space. */
export function auditRowProps(open: () => void, label: string) {
  return {
    tabIndex: 0,
    'aria-label': label,
    style: { cursor: 'pointer' },
    onClick: open,
    onKeyDown: (e: KeyboardEvent) => {
      if (e.target !== e.currentTarget) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        open();
      }
    },
  };
}
