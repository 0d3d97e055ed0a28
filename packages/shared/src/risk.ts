/**
 * Issue 14 (D6): below this many client accounts with a settled trade in the last 12 months, the risk warning shows
 * no percentage (too few to be meaningful). In a file without zod, so the landing page can import it cheaply.
 */
export const RISK_MIN_ACCOUNTS = 20;
