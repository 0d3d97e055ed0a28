/**
 * Money is integer cents inside (BIGINT, returned as strings by pg and numbers by PGlite) and dollars with at most
 * 2 decimals at the API edge. The one conversion lives in packages/shared (exact, no float arithmetic).
 */
export { centsToDollars, dollarsToCents, formatCents } from '@brokerage/shared';
