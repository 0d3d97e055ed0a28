import {
  acceptedSchema,
  changePasswordRequestSchema,
  errorSchema,
  okSchema,
  staffListResponseSchema,
  staffMemberSchema,
  updateUserRequestSchema,
  usersQuerySchema,
  usersResponseSchema,
  uuidParam,
} from '@brokerage/shared';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { changePassword, deleteUser, listStaff, listUsers, updateUser } from './service.js';
import { resendInvitation, revokeInvitation } from '../auth/invitations.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 409: errorSchema };

export const staffRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/api/users',
    {
      schema: {
        tags: ['staff'],
        summary: 'Staff members, paged, with the summary counts of the staff page',
        querystring: usersQuerySchema,
        response: { 200: usersResponseSchema, ...errors },
      },
    },
    async (request) => listUsers(deps, request.query),
  );

  app.get(
    '/api/staff',
    {
      schema: {
        tags: ['staff'],
        summary: 'Every live staff member, for manager pickers',
        response: { 200: staffListResponseSchema, ...errors },
      },
    },
    async () => listStaff(deps),
  );

  app.put(
    '/api/users/:id',
    {
      schema: {
        tags: ['staff'],
        summary: 'Edit a staff member',
        params: uuidParam,
        body: updateUserRequestSchema,
        response: { 200: staffMemberSchema, ...errors },
      },
    },
    async (request) => {
      const member = await updateUser(deps, request.params.id, request.body, request.auth!.actor);
      // A new role changes what the member's open sockets may watch (issue 9 finding 4).
      deps.bus.publish({ type: 'access.changed' });
      return member;
    },
  );

  app.put(
    '/api/users/:id/password',
    {
      schema: {
        tags: ['staff'],
        summary: "Set a staff member's password (superadmin); ends their other sessions",
        params: uuidParam,
        body: changePasswordRequestSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      const auth = request.auth!;
      await changePassword(deps, request.params.id, request.body.new_password, auth.actor, auth.sessionId);
      return { ok: true as const };
    },
  );

  app.delete(
    '/api/users/:id',
    {
      schema: {
        tags: ['staff'],
        summary: 'Delete a staff member (soft): sessions end, clients become unassigned',
        params: uuidParam,
        response: { 200: okSchema.extend({ unassigned_clients: z.number().int() }), ...errors },
      },
    },
    async (request) => {
      const result = await deleteUser(deps, request.params.id, request.auth!.actor);
      deps.bus.publish({ type: 'access.changed' });
      return { ok: true as const, ...result };
    },
  );

  app.post(
    '/api/users/:id/invitation',
    {
      schema: {
        tags: ['staff'],
        summary: 'Send an invited staff member a new invitation link (older links stop working)',
        description: '409 `not_invited` when the member has already set a password.',
        params: uuidParam,
        response: { 202: acceptedSchema, ...errors },
      },
    },
    async (request, reply) => {
      await resendInvitation(deps, request.params.id, request.auth!.actor);
      return reply.status(202).send({ ok: true as const });
    },
  );

  app.delete(
    '/api/users/:id/invitation',
    {
      schema: {
        tags: ['staff'],
        summary: 'Revoke an invitation: the links stop working and the invited member is removed',
        description: '409 `not_invited` when the member has already set a password (delete the member instead).',
        params: uuidParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await revokeInvitation(deps, request.params.id, request.auth!.actor);
      deps.bus.publish({ type: 'access.changed' });
      return { ok: true as const };
    },
  );
};
