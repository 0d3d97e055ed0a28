import {
  clientIdParam,
  clientMessageSchema,
  clientMessagesResponseSchema,
  errorSchema,
  fundsIdParam,
  messagesQuerySchema,
  sendClientMessageSchema,
  staffClientMessageSchema,
  staffClientMessagesResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { clientHistory, markRead, myMessages, sendMessage } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

export const clientMessageRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/api/client-messages',
    {
      schema: {
        tags: ['messages'],
        summary: 'Send a message to a registered client in scope (text trimmed, 1–2000 characters); audited',
        body: sendClientMessageSchema,
        response: { 201: staffClientMessageSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await sendMessage(deps.db, request.auth!.actor, request.body, deps.bus)),
  );

  app.get(
    '/api/client-messages/:clientId',
    {
      schema: {
        tags: ['messages'],
        summary: "A client's message history, newest first, with sender and read state",
        params: clientIdParam,
        querystring: messagesQuerySchema,
        response: { 200: staffClientMessagesResponseSchema, ...errors },
      },
    },
    async (request) => clientHistory(deps.db, request.auth!.actor, request.params.clientId, request.query.limit),
  );

  app.get(
    '/api/my-messages',
    {
      schema: {
        tags: ['messages'],
        summary: "The caller's messages from staff, newest first (both the bell's and the panel's fields)",
        querystring: messagesQuerySchema,
        response: { 200: clientMessagesResponseSchema, ...errors },
      },
    },
    async (request) => myMessages(deps.db, request.auth!.user.id, request.query.limit),
  );

  for (const url of ['/api/my-messages/:id/read', '/api/client-messages/:id/read'] as const) {
    app.put(
      url,
      {
        schema: {
          tags: ['messages'],
          summary: 'Mark one of your messages read (no body needed; repeating it changes nothing)',
          params: fundsIdParam,
          response: { 200: clientMessageSchema, ...errors },
        },
      },
      async (request) => markRead(deps.db, request.auth!.user.id, request.params.id),
    );
  }
};
