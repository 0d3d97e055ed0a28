import { inboxReadResponseSchema, inboxResponseSchema, type Notification } from '@brokerage/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiCall } from '../../../lib/api';
import { connectLive, onLiveMessage } from '../../../lib/ws';
import { notificationKeys } from '../../notifications/keys';
import { tradingPlatformKeys } from '../../trading-platform/keys';
import { inboxKeys } from '../keys';

/** GET /api/inbox: the conversations with unread client messages in the viewer's scope, newest first. */
export function useInbox() {
  return useQuery({
    queryKey: inboxKeys.all,
    queryFn: ({ signal }) => apiCall(inboxResponseSchema, '/api/inbox', { signal }),
    // The live socket tells of new client messages (below); this is the fallback while it is down.
    refetchInterval: 60_000,
  });
}

/** PUT /api/inbox/:clientId/read: the client's messages read by staff; the inbox and the bell are fetched again. */
export function useMarkConversationRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (clientId: number) =>
      apiCall(inboxReadResponseSchema, `/api/inbox/${clientId}/read`, { method: 'PUT' }),
    onSuccess: (result, clientId) => {
      if (result.read === 0) return;
      void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
      void queryClient.invalidateQueries({ queryKey: tradingPlatformKeys.messages(clientId) });
      void queryClient.invalidateQueries({ queryKey: notificationKeys.all });
    },
  });
}

/**
 * A client wrote (the bell's 'client_message' notification arrives over the live socket): the inbox and that
 * client's conversation are fetched again.
 */
export function useClientMessageLiveRefresh() {
  const queryClient = useQueryClient();
  useEffect(() => connectLive(), []);
  useEffect(
    () =>
      onLiveMessage((message) => {
        if (message.type !== 'notification.new') return;
        const n = message.payload.notification as Notification | undefined;
        const types = Array.isArray(message.payload.types) ? (message.payload.types as string[]) : [];
        if (n?.type !== 'client_message' && !types.includes('client_message')) return;
        void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
        void queryClient.invalidateQueries({ queryKey: tradingPlatformKeys.allMessages });
      }),
    [queryClient],
  );
}
