import {
  errorSchema,
  notificationSchema,
  notificationsQuerySchema,
  notificationsReadAllResponseSchema,
  notificationsResponseSchema,
  okSchema,
  recordIdParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { deleteNotification, listNotifications, markAllRead, markRead } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/** The caller's own notifications (back-office.md §2.8, decisions.md D12). */
export const notificationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'The caller’s notifications, newest first, paged, with the unread count',
        querystring: notificationsQuerySchema,
        response: { 200: notificationsResponseSchema, ...errors },
      },
    },
    async (request) => listNotifications(deps.db, request.auth!.user.id, request.query),
  );

  app.put(
    '/api/notifications/read-all',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Mark all the caller’s notifications read (‘Acknowledged’)',
        response: { 200: notificationsReadAllResponseSchema, ...errors },
      },
    },
    async (request) => markAllRead(deps.db, request.auth!.user.id),
  );

  app.put(
    '/api/notifications/:id/read',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Mark one of the caller’s notifications read',
        params: recordIdParam,
        response: { 200: notificationSchema, ...errors },
      },
    },
    async (request) => markRead(deps.db, request.auth!.user.id, request.params.id),
  );

  app.delete(
    '/api/notifications/:id',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Delete one of the caller’s notifications',
        params: recordIdParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => deleteNotification(deps.db, request.auth!.user.id, request.params.id),
  );
};
