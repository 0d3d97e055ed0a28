import {
  clientSchema,
  clientsResponseSchema,
  staffClientMessageSchema,
  staffClientMessagesResponseSchema,
  staffDepositMethodSchema,
  staffDepositMethodsResponseSchema,
  type Client,
  type SendClientMessageRequest,
  type UpdateDepositMethodRequest,
} from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiCall } from '../../../lib/api';
import { tradingPlatformKeys } from '../keys';

/** GET /api/deposit-methods/all: every method, enabled or not (the staff view). */
export function useDepositMethods() {
  return useQuery({
    queryKey: tradingPlatformKeys.depositMethods,
    queryFn: ({ signal }) => apiCall(staffDepositMethodsResponseSchema, '/api/deposit-methods/all', { signal }),
  });
}

/** PUT /api/deposit-methods/:id with {enabled} (the toggle) or {title, description, details, enabled} (the edit). */
export function useUpdateDepositMethod() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: UpdateDepositMethodRequest }) =>
      apiCall(staffDepositMethodSchema, `/api/deposit-methods/${id}`, { method: 'PUT', body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: tradingPlatformKeys.depositMethods }),
  });
}

export const CLIENT_SEARCH_LIMIT = 20;

/**
 * The clients to pick from: GET /api/clients?search=&per_page=20 (the server keeps to the caller's scope, D5). A search
 * of digits is also tried as a client ID (GET /api/clients/:id), which comes first when it exists.
 */
export function useClientSearch(search: string) {
  return useQuery({
    queryKey: tradingPlatformKeys.clientSearch(search),
    queryFn: async ({ signal }): Promise<Client[]> => {
      const term = search.trim();
      const byId = /^\d{1,15}$/.test(term)
        ? apiCall(clientSchema, `/api/clients/${term}`, { signal }).catch((error: unknown) => {
            if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return null;
            throw error;
          })
        : Promise.resolve(null);
      const [list, exact] = await Promise.all([
        apiCall(clientsResponseSchema, '/api/clients', {
          query: { search: term || undefined, per_page: CLIENT_SEARCH_LIMIT },
          signal,
        }),
        byId,
      ]);
      return exact ? [exact, ...list.items.filter((c) => c.id !== exact.id)] : list.items;
    },
    staleTime: 30_000,
  });
}

/** GET /api/client-messages/:clientId; §7: an error reads as an empty list. */
export function useClientMessages(clientId: number | null) {
  return useQuery({
    queryKey: tradingPlatformKeys.messages(clientId ?? 0),
    queryFn: async ({ signal }) => {
      try {
        return await apiCall(staffClientMessagesResponseSchema, `/api/client-messages/${clientId}`, { signal });
      } catch (error) {
        // An ended session still signs out; anything else leaves the history empty.
        if (signal.aborted || (error instanceof ApiError && error.status === 401)) throw error;
        console.error('Client messages could not be loaded', error);
        return [];
      }
    },
    enabled: clientId !== null,
  });
}

/** POST /api/client-messages {client_id, content}; the history is fetched again on success. */
export function useSendClientMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SendClientMessageRequest) =>
      apiCall(staffClientMessageSchema, '/api/client-messages', { method: 'POST', body }),
    onSuccess: (_message, { client_id }) =>
      queryClient.invalidateQueries({ queryKey: tradingPlatformKeys.messages(client_id) }),
  });
}
