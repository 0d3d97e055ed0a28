import {
  clientSummarySchema,
  okSchema,
  registerClientUserResponseSchema,
  verifyIdentityResponseSchema,
  type RegisterClientUser,
  type ReminderUpdate,
  clientDetailSchema,
  clientSchema,
  type ClientDetail,
  commentSchema,
  commentsResponseSchema,
  depositsResponseSchema,
  depositIntentsResponseSchema,
  reminderSchema,
  remindersResponseSchema,
  depositWriteResponseSchema,
  type ClientUpdate,
  type CommentCreate,
  type ReminderCreate,
  type ReminderStatus,
  type DepositCreate,
  type DepositUpdate,
} from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import {
  clientCardKeys,
  clientKeys,
  commentKeys,
  depositIntentKeys,
  depositKeys,
  reminderKeys,
  summaryKeys,
} from '../keys';

/** GET /api/clients/:id: the card's client with its source details (404 when unknown or outside the caller's scope). */
export function useClient(id: number) {
  return useQuery({
    queryKey: clientCardKeys.detail(id),
    queryFn: ({ signal }) => apiCall(clientDetailSchema, `/api/clients/${id}`, { signal }),
    retry: false,
  });
}

/** PUT /api/clients/:id: the card's edit; the list and the card are refreshed afterwards. */
export function useUpdateClient(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ClientUpdate) => apiCall(clientSchema, `/api/clients/${id}`, { method: 'PUT', body }),
    // The edit answers the plain client; the card keeps its source details, which an edit does not change.
    onSuccess: (client) =>
      queryClient.setQueryData<ClientDetail>(clientCardKeys.detail(id), (card) =>
        card ? { ...card, ...client } : card,
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: clientKeys.all }),
  });
}

/** GET /api/deposits?client_id=: the card's deposits, newest first, with the server's summary. */
export function useClientDeposits(clientId: number) {
  return useQuery({
    queryKey: depositKeys.forClient(clientId),
    queryFn: ({ signal }) =>
      apiCall(depositsResponseSchema, '/api/deposits', { query: { client_id: clientId, per_page: 200 }, signal }),
  });
}

/** After a deposit write: the card's deposits, the client (total, FTD) and the list's balance column. */
function useInvalidateDeposits(clientId: number) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: depositKeys.all }),
      queryClient.invalidateQueries({ queryKey: clientKeys.all }),
      queryClient.invalidateQueries({ queryKey: clientCardKeys.detail(clientId) }),
    ]);
}

export function useCreateDeposit(clientId: number) {
  const invalidate = useInvalidateDeposits(clientId);
  return useMutation({
    mutationFn: (body: DepositCreate) => apiCall(depositWriteResponseSchema, '/api/deposits', { method: 'POST', body }),
    onSettled: invalidate,
  });
}

export function useUpdateDeposit(clientId: number) {
  const invalidate = useInvalidateDeposits(clientId);
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: DepositUpdate }) =>
      apiCall(depositWriteResponseSchema, `/api/deposits/${id}`, { method: 'PUT', body }),
    onSettled: invalidate,
  });
}

export function useDeleteDeposit(clientId: number) {
  const invalidate = useInvalidateDeposits(clientId);
  return useMutation({
    mutationFn: (id: number) => apiCall(depositWriteResponseSchema, `/api/deposits/${id}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}

/** GET /api/clients/:id/comments: the card's comments. */
export function useClientComments(clientId: number) {
  return useQuery({
    queryKey: commentKeys.forClient(clientId),
    queryFn: ({ signal }) =>
      apiCall(commentsResponseSchema, `/api/clients/${clientId}/comments`, { query: { per_page: 200 }, signal }),
  });
}

/** After a comment write: the comments and the list's last-comment column. */
function useInvalidateComments(clientId: number) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: commentKeys.forClient(clientId) }),
      queryClient.invalidateQueries({ queryKey: clientKeys.all }),
    ]);
}

export function useAddComment(clientId: number) {
  const invalidate = useInvalidateComments(clientId);
  return useMutation({
    mutationFn: (body: CommentCreate) =>
      apiCall(commentSchema, `/api/clients/${clientId}/comments`, { method: 'POST', body }),
    onSettled: invalidate,
  });
}

export function usePinComment(clientId: number) {
  const invalidate = useInvalidateComments(clientId);
  return useMutation({
    mutationFn: ({ id, isPinned }: { id: number; isPinned: boolean }) =>
      apiCall(commentSchema, `/api/comments/${id}`, { method: 'PUT', body: { is_pinned: isPinned } }),
    onSettled: invalidate,
  });
}

/** GET /api/clients/:id/reminders: the first page; the card shows five and counts the rest. */
export function useClientReminders(clientId: number) {
  return useQuery({
    queryKey: reminderKeys.forClient(clientId),
    queryFn: ({ signal }) =>
      apiCall(remindersResponseSchema, `/api/clients/${clientId}/reminders`, { query: { per_page: 5 }, signal }),
  });
}

function useInvalidateReminders() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: reminderKeys.all });
}

export function useAddReminder(clientId: number) {
  const invalidate = useInvalidateReminders();
  return useMutation({
    mutationFn: (body: ReminderCreate) =>
      apiCall(reminderSchema, `/api/clients/${clientId}/reminders`, { method: 'POST', body }),
    onSettled: invalidate,
  });
}

export function useSetReminderStatus() {
  const invalidate = useInvalidateReminders();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: ReminderStatus }) =>
      apiCall(reminderSchema, `/api/reminders/${id}`, { method: 'PUT', body: { status } }),
    onSettled: invalidate,
  });
}

export function useUpdateReminder() {
  const invalidate = useInvalidateReminders();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: ReminderUpdate }) =>
      apiCall(reminderSchema, `/api/reminders/${id}`, { method: 'PUT', body }),
    onSettled: invalidate,
  });
}

export function useDeleteReminder() {
  const invalidate = useInvalidateReminders();
  return useMutation({
    mutationFn: (id: number) => apiCall(okSchema, `/api/reminders/${id}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}

/** GET /api/clients/:id/summary: the statistics sidebar, the trading account id and the first three requests. */
export function useClientSummary(clientId: number) {
  return useQuery({
    queryKey: summaryKeys.forClient(clientId),
    queryFn: ({ signal }) => apiCall(clientSummarySchema, `/api/clients/${clientId}/summary`, { signal }),
  });
}

/**
 * POST /api/clients/:id/verify-identity (issue 9): confirms the identity of a self-registration linked to this lead;
 * its pending deposits are credited, so the card, its deposits, summary and the list are refreshed.
 */
export function useVerifyIdentity(clientId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiCall(verifyIdentityResponseSchema, `/api/clients/${clientId}/verify-identity`, { method: 'POST' }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: clientCardKeys.detail(clientId) }),
        queryClient.invalidateQueries({ queryKey: depositKeys.all }),
        queryClient.invalidateQueries({ queryKey: summaryKeys.forClient(clientId) }),
        queryClient.invalidateQueries({ queryKey: clientKeys.all }),
      ]),
  });
}

/**
 * POST /api/clients/:id/register-user (§2.6 'Register user'): it creates the trading account, which credits the
 * deposits recorded before (or marks them waiting for the identity check), so the card, its deposits, its summary and
 * the list are refreshed (issue 27 item 2: the deposit still read 'НЕ ЗАЧИСЛЕН' after the ledger had credited it).
 */
export function useRegisterClientUser(clientId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RegisterClientUser) =>
      apiCall(registerClientUserResponseSchema, `/api/clients/${clientId}/register-user`, { method: 'POST', body }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: clientCardKeys.detail(clientId) }),
        queryClient.invalidateQueries({ queryKey: depositKeys.all }),
        queryClient.invalidateQueries({ queryKey: summaryKeys.forClient(clientId) }),
        queryClient.invalidateQueries({ queryKey: clientKeys.all }),
      ]),
  });
}

/** PUT /api/clients/:id/change-password. */
export function useChangeClientPassword(clientId: number) {
  return useMutation({
    mutationFn: (newPassword: string) =>
      apiCall(okSchema, `/api/clients/${clientId}/change-password`, {
        method: 'PUT',
        body: { new_password: newPassword },
      }),
  });
}

/** GET /api/clients/:id/deposit-intents (D21): the client's confirmed top-ups, newest first; not money. */
export function useClientDepositIntents(clientId: number) {
  return useQuery({
    queryKey: depositIntentKeys.forClient(clientId),
    queryFn: ({ signal }) =>
      apiCall(depositIntentsResponseSchema, `/api/clients/${clientId}/deposit-intents`, {
        query: { per_page: 20 },
        signal,
      }),
  });
}
