import { createContext, useContext } from 'react';

export interface AuditedTrade {
  id: number;
  asset: string;
}

/**
 * Opens the contract audit of a trade (issue 14). Provided by the live trading screen; absent in demo mode, whose
 * trades live in the page and have nothing stored to audit — there the trade cards are not clickable.
 */
export const TradeAuditContext = createContext<((trade: AuditedTrade) => void) | null>(null);

export function useAuditOpener(): ((trade: AuditedTrade) => void) | null {
  return useContext(TradeAuditContext);
}
