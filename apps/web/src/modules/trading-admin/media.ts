import { useMediaQuery } from '@mantine/hooks';
import { MOBILE_QUERY } from '../layout/media';

/** Phones (the layout's breakpoint): the accounts list and the active trades become cards. */
export function useIsPhone(): boolean {
  return useMediaQuery(MOBILE_QUERY, false, { getInitialValueInEffect: false }) ?? false;
}
