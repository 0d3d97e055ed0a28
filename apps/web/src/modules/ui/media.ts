import { useMediaQuery } from '@mantine/hooks';

/** Phones: below Mantine's 'sm' breakpoint (768 px). The layout's sliding menu and the card lists switch on it. */
export const MOBILE_QUERY = '(max-width: 47.99em)';

/** Whether the screen is a phone's (MOBILE_QUERY), known at the first render so a list does not flash its table. */
export function useIsPhone(): boolean {
  return useMediaQuery(MOBILE_QUERY, false, { getInitialValueInEffect: false }) ?? false;
}
