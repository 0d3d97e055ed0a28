/** The live socket's 'notification.new' invalidates this prefix (lib/ws.ts). */
export const notificationKeys = {
  all: ['notifications'] as const,
  list: ['notifications', 'list'] as const,
};
