import {
  affiliateStatsSchema,
  affiliateUpdateResponseSchema,
  affiliatesResponseSchema,
  rotateSecretResponseSchema,
  type AffiliateUpdate,
} from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall, apiRequest } from '../../../lib/api';

export const affiliateKeys = {
  all: ['affiliates'] as const,
  list: ['affiliates', 'list'] as const,
  stats: (id: number) => ['affiliates', 'stats', id] as const,
};

/** GET /api/affiliates (§2.13): every affiliate that is not deleted. */
export function useAffiliates() {
  return useQuery({
    queryKey: affiliateKeys.list,
    queryFn: ({ signal }) => apiCall(affiliatesResponseSchema, '/api/affiliates', { signal }),
  });
}

/** GET /api/affiliates/{id}/stats, while the Stats modal is open. */
export function useAffiliateStats(id: number | null) {
  return useQuery({
    queryKey: affiliateKeys.stats(id ?? 0),
    queryFn: ({ signal }) => apiCall(affiliateStatsSchema, `/api/affiliates/${id}/stats`, { signal }),
    enabled: id !== null,
  });
}

function useInvalidateAffiliates() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: affiliateKeys.all });
}

/** PUT /api/affiliates/{id}: answers the signing secret once, when this save created it (D17). */
export function useUpdateAffiliate() {
  const invalidate = useInvalidateAffiliates();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: AffiliateUpdate }) =>
      apiCall(affiliateUpdateResponseSchema, `/api/affiliates/${id}`, { method: 'PUT', body }),
    onSettled: invalidate,
  });
}

/** POST /api/affiliates/{id}/rotate-secret: the new secret, answered this once. */
export function useRotateSecret() {
  const invalidate = useInvalidateAffiliates();
  return useMutation({
    mutationFn: (id: number) =>
      apiCall(rotateSecretResponseSchema, `/api/affiliates/${id}/rotate-secret`, { method: 'POST' }),
    onSettled: invalidate,
  });
}

export function useDeleteAffiliate() {
  const invalidate = useInvalidateAffiliates();
  return useMutation({
    mutationFn: (id: number) => apiRequest(`/api/affiliates/${id}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}
