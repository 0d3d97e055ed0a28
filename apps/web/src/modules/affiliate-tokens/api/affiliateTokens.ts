import { affiliateTokenSchema, affiliateTokensResponseSchema, okSchema } from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';

export const affiliateTokenKeys = {
  all: ['affiliate-tokens'] as const,
  list: () => [...affiliateTokenKeys.all, 'list'] as const,
};

/** GET /api/affiliate-tokens: the live tokens, masked (first 8 ... last 4). */
export function useAffiliateTokens() {
  return useQuery({
    queryKey: affiliateTokenKeys.list(),
    queryFn: ({ signal }) => apiCall(affiliateTokensResponseSchema, '/api/affiliate-tokens', { signal }),
  });
}

/** POST /api/affiliate-tokens?name=…: the answer carries the full token, this once (D17). */
export function useCreateAffiliateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      apiCall(affiliateTokenSchema, '/api/affiliate-tokens', { method: 'POST', query: { name } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: affiliateTokenKeys.all }),
  });
}

/** PUT /api/affiliate-tokens/{id}/whitelist: the whole list; empty = any address. */
export function useSetTokenWhitelist() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, entries }: { id: number; entries: string[] }) =>
      apiCall(affiliateTokenSchema, `/api/affiliate-tokens/${id}/whitelist`, { method: 'PUT', body: entries }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: affiliateTokenKeys.all }),
  });
}

/** DELETE /api/affiliate-tokens/{id}: revoked at once; the affiliate and its leads stay. */
export function useDeleteAffiliateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiCall(okSchema, `/api/affiliate-tokens/${id}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: affiliateTokenKeys.all }),
  });
}
