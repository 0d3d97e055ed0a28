import {
  demoAccountsResponseSchema,
  errorSchema,
  loginRequestSchema,
  meResponseSchema,
  okSchema,
  registerClientRequestSchema,
  registerStaffRequestSchema,
  sessionResponseSchema,
  staffMemberSchema,
} from '@brokerage/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { SESSION_COOKIE } from '../../platform/auth/sessions.js';
import { demoAccounts } from '../../seed/demo.js';
import { toStaffMember } from '../staff/service.js';
import { login, logout, registerClient, registerStaff, toUser } from './service.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 409: errorSchema, 429: errorSchema };

export const authRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const loginRate = { max: deps.config.LOGIN_RATE_PER_MINUTE, timeWindow: '1 minute' };

  function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, role: string) {
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      path: '/',
      // A client stays signed in across browser restarts for its 7 days; a staff cookie ends with the browser.
      ...(role === 'client' ? { maxAge: deps.sessionPolicy.clientIdleSeconds } : {}),
    });
  }
  const meta = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

  app.post(
    '/api/auth/login',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Sign in; sets the session cookie and returns the same token for programs',
        body: loginRequestSchema,
        response: { 200: sessionResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { token, user } = await login(deps, request.body, meta(request));
      setSessionCookie(request, reply, token, user.role);
      return { access_token: token, token_type: 'bearer' as const, user: toUser(user) };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      schema: { tags: ['auth'], summary: 'Revoke the current session', response: { 200: okSchema, 401: errorSchema } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      await logout(deps, auth.sessionId, auth.actor);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { ok: true as const };
    },
  );

  app.get(
    '/api/auth/me',
    {
      schema: { tags: ['auth'], summary: 'The signed-in user', response: { 200: meResponseSchema, 401: errorSchema } },
    },
    async (request) => ({
      ...toUser(request.auth!.user),
      demo: deps.config.DEMO_DATA,
      business_timezone: deps.config.BUSINESS_TIMEZONE,
    }),
  );

  app.get(
    '/api/auth/demo-accounts',
    {
      schema: {
        tags: ['auth'],
        summary: 'Demo logins; empty unless the server runs with DEMO_DATA=1',
        response: { 200: demoAccountsResponseSchema },
      },
    },
    async () => ({ demo: deps.config.DEMO_DATA, accounts: deps.config.DEMO_DATA ? demoAccounts() : [] }),
  );

  app.post(
    '/api/auth/register-client',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Public client registration: creates the user and its CRM client record',
        body: registerClientRequestSchema,
        response: { 201: sessionResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { token, user } = await registerClient(deps, request.body, meta(request));
      setSessionCookie(request, reply, token, user.role);
      return reply.status(201).send({ access_token: token, token_type: 'bearer' as const, user: toUser(user) });
    },
  );

  app.post(
    '/api/auth/register',
    {
      schema: {
        tags: ['staff'],
        summary: 'Create a staff member (superadmin, admin)',
        body: registerStaffRequestSchema,
        response: { 201: staffMemberSchema, ...errors },
      },
    },
    async (request, reply) => {
      const user = await registerStaff(deps, request.body, request.auth!.actor);
      return reply.status(201).send(toStaffMember(user, 0));
    },
  );
};
