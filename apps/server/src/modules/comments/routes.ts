import {
  commentCreateSchema,
  commentPinSchema,
  commentSchema,
  commentsQuerySchema,
  commentsResponseSchema,
  errorSchema,
  recordIdParam,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { addComment, listComments, pinComment } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/** Comments on the client card (back-office.md §2.6, §7). */
export const commentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/clients/:id/comments',
    {
      schema: {
        tags: ['comments'],
        summary: 'A client’s comments: pinned first, newest first, paged',
        params: recordIdParam,
        querystring: commentsQuerySchema,
        response: { 200: commentsResponseSchema, ...errors },
      },
    },
    async (request) => listComments(deps.db, request.auth!.actor, request.params.id, request.query),
  );

  app.post(
    '/api/clients/:id/comments',
    {
      schema: {
        tags: ['comments'],
        summary: 'Add a comment (optionally pinned); moves the client’s last comment date',
        params: recordIdParam,
        body: commentCreateSchema,
        response: { 201: commentSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await addComment(deps.db, request.auth!.actor, request.params.id, request.body)),
  );

  app.put(
    '/api/comments/:id',
    {
      schema: {
        tags: ['comments'],
        summary: 'Pin or unpin a comment',
        params: recordIdParam,
        body: commentPinSchema,
        response: { 200: commentSchema, ...errors },
      },
    },
    async (request) => pinComment(deps.db, request.auth!.actor, request.params.id, request.body.is_pinned),
  );
};
