import { tradingPlatformKeys } from '../trading-platform/keys';

/** The query keys of 'Входящие' and of the client card's conversation (issue 22 §6). */
export const inboxKeys = {
  all: ['inbox'] as const,
  /** Under the prefix the trading platform's send (and the live refresh) makes stale. */
  conversation: (clientId: number) => [...tradingPlatformKeys.messages(clientId), 'conversation'] as const,
};
