import { centsToDollars, potentialProfitCents, type AdminTrade, type Trade } from '@brokerage/shared';
import type { TradeRow } from '../../platform/db/types.js';

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));
const priceOrNull = (p: string | null) => (p === null ? null : Number(p));

function common(row: TradeRow) {
  const amountCents = Number(row.amount_cents);
  return {
    id: Number(row.id),
    asset: row.asset,
    direction: row.direction,
    amount: centsToDollars(amountCents),
    duration: row.duration_seconds,
    status: row.status,
    payout_percentage: row.payout_percentage,
    expected_payout: centsToDollars(potentialProfitCents(amountCents, row.payout_percentage)),
    strike_price: Number(row.strike_price),
    strike_at: iso(row.strike_at),
    close_price: priceOrNull(row.close_price),
    close_at: isoOrNull(row.close_at),
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    settled_at: isoOrNull(row.settled_at),
  };
}

/** A trade as its client sees it (client-platform.md §3, with the prices and times that decided it). */
export function toClientTrade(row: TradeRow): Trade {
  return {
    ...common(row),
    payout: row.payout_percentage,
    profit_loss: row.profit_cents === null ? null : centsToDollars(row.profit_cents),
  };
}

/** A trade as staff see it (back-office.md §3 'Trade (admin view)', plus who asked to void it, why, who confirmed). */
export function toAdminTrade(
  row: TradeRow & { voided_by_name?: string | null; void_confirmed_by_name?: string | null },
): AdminTrade {
  return {
    ...common(row),
    account_id: Number(row.account_id),
    profit: row.profit_cents === null ? null : centsToDollars(row.profit_cents),
    void_reason: row.void_reason,
    voided_by: row.voided_by,
    voided_by_name: row.voided_by_name ?? null,
    void_confirmed_by_name: row.void_confirmed_by_name ?? null,
  };
}
