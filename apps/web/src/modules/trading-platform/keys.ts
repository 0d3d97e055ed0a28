/** The query keys of the trading platform's staff settings (deposit methods, messages to clients). */
export const tradingPlatformKeys = {
  depositMethods: ['deposit-methods', 'all'] as const,
  clientSearch: (search: string) => ['clients', 'message-search', search] as const,
  /** Every client's message history (a new message marks them all stale). */
  allMessages: ['client-messages'] as const,
  messages: (clientId: number) => ['client-messages', clientId] as const,
};
