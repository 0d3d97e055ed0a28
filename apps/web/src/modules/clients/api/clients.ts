import {
  bulkAssignResponseSchema,
  clientFilterOptionsSchema,
  clientSchema,
  clientsResponseSchema,
  type BulkAssign,
  type ClientCreate,
} from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall, withQuery, type QueryValue } from '../../../lib/api';
import { currentLanguage } from '../../../i18n';
import { clientsQuery, type ClientsQueryInput } from '../list-state';
import { clientKeys } from '../keys';

/**
 * GET /api/clients/filter-options: the countries, campaigns and (for the affiliates filter's roles) affiliates of the
 * clients the caller may see (D5), for the §2.5 multi-selects and the add-client lists. Refetched after any client
 * write (it shares the 'clients' key), otherwise kept for a minute.
 */
export function useClientFilterOptions() {
  return useQuery({
    queryKey: clientKeys.filterOptions,
    queryFn: ({ signal }) => apiCall(clientFilterOptionsSchema, '/api/clients/filter-options', { signal }),
    staleTime: 60_000,
  });
}

/** GET /api/clients: one page of the clients the caller may see (the server applies the D5 scope). */
export function useClientsList(input: ClientsQueryInput) {
  const query = clientsQuery(input);
  return useQuery({
    queryKey: clientKeys.list(query),
    queryFn: ({ signal }) => apiCall(clientsResponseSchema, '/api/clients', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** GET /api/clients/:id for the ID lookup (§2.5): the client, or an ApiError (404 when unknown or out of scope). */
export function lookupClient(id: number) {
  return apiCall(clientSchema, `/api/clients/${id}`);
}

/** POST /api/clients (§2.5 'Add client'); the list reloads afterwards. */
export function useCreateClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ClientCreate) => apiCall(clientSchema, '/api/clients', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clientKeys.all }),
  });
}

/** POST /api/clients/bulk-assign-manager (§2.5 bulk panel); the list reloads afterwards. */
export function useBulkAssign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkAssign) =>
      apiCall(bulkAssignResponseSchema, '/api/clients/bulk-assign-manager', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clientKeys.all }),
  });
}

export type DownloadFailure = 'server' | 'network';

/** The file name of a Content-Disposition header (plain or RFC 5987 form), else the fallback. */
export function dispositionFileName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain ? plain[1]!.trim() : fallback;
}

/**
 * Downloads a server-made file (the Excel exports, §2.5 and §2.10; §7 takes the name from Content-Disposition).
 * Resolves to null on success, or to why it failed: the server refused ('server') or the network failed ('network').
 */
export async function downloadFile(
  path: string,
  query: Record<string, QueryValue>,
  fallbackName: string,
): Promise<DownloadFailure | null> {
  let response: Response;
  let blob: Blob;
  try {
    response = await fetch(withQuery(path, query), {
      credentials: 'same-origin',
      headers: { 'Accept-Language': currentLanguage() },
    });
    if (!response.ok) return 'server';
    blob = await response.blob();
  } catch {
    return 'network';
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = dispositionFileName(response.headers.get('Content-Disposition'), fallbackName);
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser time to start the download before the object URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return null;
}

/** The list's query without paging: what the Excel export takes (GET /api/clients/export/excel). */
export function exportQuery(input: ClientsQueryInput): Record<string, QueryValue> {
  const { page: _page, per_page: _perPage, ...rest } = clientsQuery(input);
  return rest;
}
