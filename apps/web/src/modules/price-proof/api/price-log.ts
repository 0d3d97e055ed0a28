import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiCall } from '../../../lib/api';
import { saveBlob } from '../../../lib/download';

/**
 * The price log's public answers (issue 30, decisions.md D27): the signing key, the latest signed head and the
 * consistency proof between two heads. Public calls, no session; nothing here is under ['trading', …], so no live
 * account event refetches them.
 */

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));

export const priceLogHeadSchema = z.object({
  tree_size: z.number().int().nonnegative(),
  time_ms: z.number().int().nonnegative(),
  root: hex(32),
  signature: hex(64),
  key_id: hex(8).optional(),
});
export type PriceLogHead = z.infer<typeof priceLogHeadSchema>;

export const priceLogKeySchema = z.object({
  algorithm: z.string(),
  public_key: hex(32),
  key_id: hex(8),
  pem: z.string(),
});
export type PriceLogKey = z.infer<typeof priceLogKeySchema>;

export const consistencySchema = z.object({
  first: priceLogHeadSchema,
  second: priceLogHeadSchema,
  proof: z.array(hex(32)),
});
export type Consistency = z.infer<typeof consistencySchema>;

export const priceProofKeys = {
  key: ['price-log', 'key'] as const,
  latestHead: ['price-log', 'heads', 'latest'] as const,
  consistency: (first: number, second: number) => ['price-log', 'consistency', first, second] as const,
  /** A verification run: the files by the token they got when chosen, and the language of the verifier's texts. */
  verdicts: (proofToken: number, headToken: number, lang: string) =>
    ['price-proof', 'verdicts', proofToken, headToken, lang] as const,
};

export const PRICE_LOG_KEY_PATH = '/api/price-log/key';
export const PRICE_LOG_HEADS_PATH = '/api/price-log/heads';
export const LATEST_HEAD_PATH = '/api/price-log/heads/latest';

export function usePriceLogKey() {
  return useQuery({
    queryKey: priceProofKeys.key,
    queryFn: () => apiCall(priceLogKeySchema, PRICE_LOG_KEY_PATH),
    staleTime: 3_600_000,
    retry: 1,
  });
}

/** The newest signed head; a new one is published every second or so while prices flow, so it is kept 10 s. */
export function useLatestHead() {
  return useQuery({
    queryKey: priceProofKeys.latestHead,
    queryFn: () => apiCall(priceLogHeadSchema, LATEST_HEAD_PATH),
    staleTime: 10_000,
    retry: 1,
  });
}

/** RFC 6962's consistency proof between the published heads of sizes `first` ≤ `second`. */
export function fetchConsistency(first: number, second: number): Promise<Consistency> {
  return apiCall(consistencySchema, '/api/price-log/consistency', { query: { first, second } });
}

/** The head as a file the client keeps, to check later (with a newer proof) that the log only grew. */
export function saveHeadFile(head: PriceLogHead): void {
  const body = JSON.stringify(head, null, 2) + '\n';
  saveBlob(new Blob([body], { type: 'application/json' }), `price-log-head-${head.tree_size}.json`);
}

/** The calls that download proofs: the client's own trade's, the staff's scoped twin, beside the audit calls. */
export const clientProofUrl = (tradeId: number) => `/api/trading/trades/${tradeId}/proof`;
export const staffProofUrl = (accountId: number, tradeId: number) =>
  `/api/trading/admin/accounts/${accountId}/trades/${tradeId}/proof`;
