import type { clientsQuery } from './list-state';

/** The query keys of the clients list and the client card (its deposits, comments, reminders, summary, intents). */
export const clientKeys = {
  all: ['clients'] as const,
  list: (query: ReturnType<typeof clientsQuery>) => ['clients', 'list', query] as const,
  filterOptions: ['clients', 'filter-options'] as const,
};

export const clientCardKeys = {
  detail: (id: number) => ['clients', 'detail', id] as const,
};

export const depositKeys = {
  all: ['deposits'] as const,
  forClient: (clientId: number) => ['deposits', 'client', clientId] as const,
};

export const commentKeys = {
  forClient: (clientId: number) => ['comments', 'client', clientId] as const,
};

export const reminderKeys = {
  all: ['reminders'] as const,
  forClient: (clientId: number) => ['reminders', 'client', clientId] as const,
  /** The reminders calendar's page (its own screen, the same prefix: a card's edit refreshes it). */
  calendar: (query: Record<string, string | number>) => ['reminders', 'calendar', query] as const,
};

export const summaryKeys = {
  forClient: (clientId: number) => ['clients', 'summary', clientId] as const,
};

export const depositIntentKeys = {
  forClient: (clientId: number) => ['clients', 'deposit-intents', clientId] as const,
};
