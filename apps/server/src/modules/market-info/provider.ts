import type { CalendarEvent, Fundamentals } from '@brokerage/shared';

/**
 * A source of economic calendar events and company fundamentals (decisions.md D14). The service caches answers and,
 * when a live provider fails, answers from the shipped snapshot with `demo: true`.
 */
export interface MarketInfoProvider {
  readonly name: string;
  /** Events around `now` (the provider decides the window). */
  calendar(now: Date): Promise<CalendarEvent[]>;
  /** null when the provider has no data for the symbol. */
  fundamentals(symbol: string): Promise<Fundamentals | null>;
  /** The symbols of `selector` it can answer fundamentals for, in that order. */
  fundamentalsSymbols(selector: readonly string[]): readonly string[];
}

/** A provider call that failed (network, status, unexpected body); the message never carries the key. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}
