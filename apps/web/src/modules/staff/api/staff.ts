import {
  acceptedSchema,
  staffListResponseSchema,
  usersResponseSchema,
  type ChangePasswordRequest,
  type RegisterStaffRequest,
  type StaffRole,
  type UpdateUserRequest,
} from '@brokerage/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall, apiRequest } from '../../../lib/api';

export interface UsersListParams {
  page: number;
  perPage: number;
  search: string;
  role: StaffRole | null;
}

export const staffKeys = {
  users: ['users'] as const,
  usersList: (params: UsersListParams) => ['users', 'list', params] as const,
  /** GET /api/staff: the short list used by filters of other screens. */
  options: ['staff', 'options'] as const,
};

export function useUsersList(params: UsersListParams) {
  return useQuery({
    queryKey: staffKeys.usersList(params),
    queryFn: ({ signal }) =>
      apiCall(usersResponseSchema, '/api/users', {
        query: {
          page: params.page,
          per_page: params.perPage,
          search: params.search.trim() || undefined,
          role: params.role ?? undefined,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

export function useStaffOptions({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: staffKeys.options,
    queryFn: ({ signal }) => apiCall(staffListResponseSchema, '/api/staff', { signal }),
    staleTime: 5 * 60_000,
    enabled,
  });
}

function useInvalidateStaff() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: staffKeys.users }),
      queryClient.invalidateQueries({ queryKey: staffKeys.options }),
    ]);
}

export function useCreateStaff() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: (body: RegisterStaffRequest) => apiRequest('/api/auth/register', { method: 'POST', body }),
    onSettled: invalidate,
  });
}

export function useUpdateStaff() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateUserRequest }) =>
      apiRequest(`/api/users/${encodeURIComponent(id)}`, { method: 'PUT', body }),
    onSettled: invalidate,
  });
}

export function useChangeStaffPassword() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: ChangePasswordRequest }) =>
      apiRequest(`/api/users/${encodeURIComponent(id)}/password`, { method: 'PUT', body }),
    onSettled: invalidate,
  });
}

export function useDeleteStaff() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: (id: string) => apiRequest(`/api/users/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}

/** Issue 22 §4: a new invitation link for a member who has not set a password yet (older links stop working). */
export function useResendInvitation() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: (id: string) =>
      apiCall(acceptedSchema, `/api/users/${encodeURIComponent(id)}/invitation`, { method: 'POST' }),
    onSettled: invalidate,
  });
}

/** Issue 22 §4: revokes the invitation's links and removes the invited member. */
export function useRevokeInvitation() {
  const invalidate = useInvalidateStaff();
  return useMutation({
    mutationFn: (id: string) =>
      apiCall(acceptedSchema, `/api/users/${encodeURIComponent(id)}/invitation`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}
