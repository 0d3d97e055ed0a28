import { ipWhitelistResponseSchema, type CreateIpRequest } from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall, apiRequest } from '../../../lib/api';

export const ipWhitelistKeys = {
  all: ['ip-whitelist'] as const,
};

export function useIpWhitelist() {
  return useQuery({
    queryKey: ipWhitelistKeys.all,
    queryFn: ({ signal }) => apiCall(ipWhitelistResponseSchema, '/api/ip-whitelist', { signal }),
  });
}

export function useAddIp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateIpRequest) => apiRequest('/api/ip-whitelist', { method: 'POST', body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ipWhitelistKeys.all }),
  });
}

export function useRemoveIp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiRequest(`/api/ip-whitelist/${id}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ipWhitelistKeys.all }),
  });
}
