import {
  clientIdParam,
  clientMessageSchema,
  clientMessagesResponseSchema,
  errorSchema,
  fundsIdParam,
  inboxReadResponseSchema,
  inboxResponseSchema,
  messagesQuerySchema,
  sendMyMessageSchema,
  sendClientMessageSchema,
  staffClientMessageSchema,
  staffClientMessagesResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listInbox, markInboxRead } from './inbox.js';
import { clientHistory, markRead, myMessages, sendMessage, sendMyMessage } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

export const clientMessageRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/api/client-messages',
    {
      schema: {
        tags: ['messages'],
        summary:
          'Send a message to a registered client in scope (text trimmed, 1–2000 characters): messages.send roles or ' +
          "the client's own manager (else 403); audited, e-mailed to the client (broker_message) unless opted out, " +
          "and marks the client's unread messages read",
        body: sendClientMessageSchema,
        response: { 201: staffClientMessageSchema, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await sendMessage(deps, request.auth!.actor, request.body)),
  );

  app.get(
    '/api/client-messages/:clientId',
    {
      schema: {
        tags: ['messages'],
        summary:
          "A client's conversation, both directions, newest first, with sender and read state (messages.send roles " +
          "or the client's own manager)",
        params: clientIdParam,
        querystring: messagesQuerySchema,
        response: { 200: staffClientMessagesResponseSchema, ...errors },
      },
    },
    async (request) => clientHistory(deps, request.auth!.actor, request.params.clientId, request.query.limit),
  );

  app.post(
    '/api/my-messages',
    {
      schema: {
        tags: ['messages'],
        summary:
          "The client writes to the broker ('Поддержка'; text trimmed, 1–4000 characters, at most 30 an hour → 429 " +
          "with Retry-After); the client's manager, or the department's team leads, are notified",
        body: sendMyMessageSchema,
        response: { 201: clientMessageSchema, 429: errorSchema, ...errors },
      },
    },
    async (request, reply) => reply.status(201).send(await sendMyMessage(deps, request.auth!.user.id, request.body)),
  );

  app.get(
    '/api/inbox',
    {
      schema: {
        tags: ['messages'],
        summary:
          "'Входящие': conversations with unread client messages in the caller's client scope (D5), newest first, " +
          "with the client's manager",
        querystring: messagesQuerySchema,
        response: { 200: inboxResponseSchema, ...errors },
      },
    },
    async (request) => listInbox(deps.db, request.auth!.actor, request.query.limit),
  );

  app.put(
    '/api/inbox/:clientId/read',
    {
      schema: {
        tags: ['messages'],
        summary:
          "Mark the client's messages to the broker read (client in scope, else 404); also the caller's bell " +
          'notifications about them',
        params: clientIdParam,
        response: { 200: inboxReadResponseSchema, ...errors },
      },
    },
    async (request) => markInboxRead(deps.db, request.auth!.actor, request.params.clientId),
  );

  app.get(
    '/api/my-messages',
    {
      schema: {
        tags: ['messages'],
        summary:
          "The caller's conversation with the broker, both directions, newest first (both the bell's and the " +
          "panel's fields; read = the other side read it)",
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
          summary: 'Mark a message from staff to you read (no body needed; repeating it changes nothing)',
          params: fundsIdParam,
          response: { 200: clientMessageSchema, ...errors },
        },
      },
      async (request) => markRead(deps.db, request.auth!.user.id, request.params.id),
    );
  }
};
