/** Phones: below Mantine's 'sm' breakpoint (768 px). The layout's sliding menu and the card lists switch on it. */
export const MOBILE_QUERY = '(max-width: 47.99em)';
