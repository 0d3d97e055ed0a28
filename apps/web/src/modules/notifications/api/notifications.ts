import {
  notificationSchema,
  notificationsReadAllResponseSchema,
  notificationsResponseSchema,
  okSchema,
} from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiCall } from '../../../lib/api';
import { useLiveConnected } from '../../../lib/ws';
import { notificationKeys } from '../keys';

/** How many the panel shows (the newest). */
export const PANEL_SIZE = 30;
/** Polling only while the live socket is down (D11). */
const FALLBACK_POLL_MS = 60_000;

/** GET /api/notifications: the newest, with the unread count. */
export function useNotifications() {
  const live = useLiveConnected();
  return useQuery({
    queryKey: notificationKeys.list,
    queryFn: ({ signal }) =>
      apiCall(notificationsResponseSchema, '/api/notifications', { query: { per_page: PANEL_SIZE }, signal }),
    refetchInterval: live ? false : FALLBACK_POLL_MS,
  });
}

function useInvalidate() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: notificationKeys.all });
}

export function useMarkRead() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => apiCall(notificationSchema, `/api/notifications/${id}/read`, { method: 'PUT' }),
    onSettled: invalidate,
  });
}

export function useMarkAllRead() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: () => apiCall(notificationsReadAllResponseSchema, '/api/notifications/read-all', { method: 'PUT' }),
    onSettled: invalidate,
  });
}

export function useDeleteNotification() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (id: number) => apiCall(okSchema, `/api/notifications/${id}`, { method: 'DELETE' }),
    onSettled: invalidate,
  });
}
