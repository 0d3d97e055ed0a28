import {
  clientRemindersQuerySchema,
  errorSchema,
  okSchema,
  recordIdParam,
  reminderCreateSchema,
  reminderSchema,
  reminderUpdateSchema,
  remindersQuerySchema,
  remindersResponseSchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import {
  createReminder,
  deleteReminder,
  listClientReminders,
  listReminders,
  updateReminder,
  type ReminderDeps,
} from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };

/** Reminders on the client card and the reminder calendar (back-office.md §2.6, §2.7, §7). */
export const reminderRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; now?: () => Date }> = async (app, opts) => {
  const deps: ReminderDeps = {
    db: opts.deps.db,
    timeZone: opts.deps.config.BUSINESS_TIMEZONE,
    now: opts.now ?? (() => new Date()),
  };

  app.get(
    '/api/clients/:id/reminders',
    {
      schema: {
        tags: ['reminders'],
        summary: 'A client’s reminders, soonest first, paged',
        params: recordIdParam,
        querystring: clientRemindersQuerySchema,
        response: { 200: remindersResponseSchema, ...errors },
      },
    },
    async (request) => listClientReminders(deps, request.auth!.actor, request.params.id, request.query),
  );

  app.post(
    '/api/clients/:id/reminders',
    {
      schema: {
        tags: ['reminders'],
        summary: 'Add a reminder (status pending)',
        params: recordIdParam,
        body: reminderCreateSchema,
        response: { 201: reminderSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createReminder(deps, request.auth!.actor, request.params.id, request.body)),
  );

  app.get(
    '/api/reminders',
    {
      schema: {
        tags: ['reminders'],
        summary:
          'The reminder calendar: reminders of the clients in scope in a period (default today to today + 7 days)',
        querystring: remindersQuerySchema,
        response: { 200: remindersResponseSchema, ...errors },
      },
    },
    async (request) => listReminders(deps, request.auth!.actor, request.query),
  );

  app.put(
    '/api/reminders/:id',
    {
      schema: {
        tags: ['reminders'],
        summary: 'Change a reminder: the status alone, or its title, description, time and status',
        params: recordIdParam,
        body: reminderUpdateSchema,
        response: { 200: reminderSchema, ...errors },
      },
    },
    async (request) => updateReminder(deps, request.auth!.actor, request.params.id, request.body),
  );

  app.delete(
    '/api/reminders/:id',
    {
      schema: {
        tags: ['reminders'],
        summary: 'Delete a reminder',
        params: recordIdParam,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => deleteReminder(deps, request.auth!.actor, request.params.id),
  );
};
