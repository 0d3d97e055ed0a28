import {
  challengeCodeRequestSchema,
  challengeRequestSchema,
  demoAccountsResponseSchema,
  enrollConfirmResponseSchema,
  errorSchema,
  loginRequestSchema,
  loginResponseSchema,
  recoveryCodesSchema,
  twoFactorSecretSchema,
  twoFactorSetupConfirmSchema,
  twoFactorSetupRequestSchema,
  twoFactorStatusSchema,
  meResponseSchema,
  okSchema,
  registerClientRequestSchema,
  registerStaffRequestSchema,
  sessionResponseSchema,
  staffMemberSchema,
  type FailedAttempts,
} from '@brokerage/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { SESSION_COOKIE } from '../../platform/auth/sessions.js';
import { demoAccounts } from '../../seed/demo.js';
import { toStaffMember } from '../staff/service.js';
import { login, logout, registerClient, registerStaff, SignInDelayed, toUser } from './service.js';
import {
  confirmSetup,
  confirmWithChallenge,
  endSessionsOfUnenrolled,
  enrollWithChallenge,
  loginWithCode,
  startSetup,
  twoFactorStatus,
} from './two-factor.js';

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 409: errorSchema, 429: errorSchema };

export const authRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const loginRate = { max: deps.config.LOGIN_RATE_PER_MINUTE, timeWindow: '1 minute' };

  // Staff who must enroll and have not: sessions opened before the requirement end now (their next call signs in).
  const ended = await endSessionsOfUnenrolled(deps.db, deps.config.requireTwoFactorRoles);
  if (ended > 0) app.log.info({ sessions: ended }, 'ended the sessions of staff who must enroll in two-factor sign-in');

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

  /** A sign-in delay answers 429 with Retry-After (seconds) and a detail naming the wait. */
  /** A sign-in that ends in a session: the cookie set, and the same token, the user and the failures since the last. */
  function sessionAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    done: { token: string; user: Parameters<typeof toUser>[0]; failedAttempts?: FailedAttempts | null | undefined },
  ) {
    setSessionCookie(request, reply, done.token, done.user.role);
    return {
      access_token: done.token,
      token_type: 'bearer' as const,
      user: toUser(done.user),
      ...(done.failedAttempts ? { failed_attempts: done.failedAttempts } : {}),
    };
  }

  async function withDelayHeader<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof SignInDelayed) reply.header('retry-after', String(err.seconds));
      throw err;
    }
  }

  app.post(
    '/api/auth/login',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Sign in; sets the session cookie and returns the same token for programs',
        description:
          'A right password answers the session, or for staff with two-factor sign-in `{otp_required, challenge}` ' +
          '(send a code to /api/auth/login/otp) or `{enrollment_required, challenge}` (enroll at /api/auth/2fa/enroll ' +
          'and /api/auth/2fa/confirm); no session in those two. Failures slow down the e-mail from that address and ' +
          'the address itself: 429 with Retry-After while a delay runs. `failed_attempts` tells of failures since the ' +
          'previous successful sign-in.',
        body: loginRequestSchema,
        response: { 200: loginResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const outcome = await withDelayHeader(reply, () => login(deps, request.body, meta(request)));
      if (outcome.kind !== 'session') {
        reply.header('cache-control', 'no-store');
        return outcome.kind === 'enroll'
          ? { enrollment_required: true as const, challenge: outcome.challenge }
          : { otp_required: true as const, challenge: outcome.challenge };
      }
      return sessionAnswer(request, reply, outcome);
    },
  );

  app.post(
    '/api/auth/login/otp',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Second sign-in step: a TOTP code or a recovery code with the challenge of the password step',
        body: challengeCodeRequestSchema,
        response: { 200: sessionResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const done = await withDelayHeader(reply, () => loginWithCode(deps, request.body, meta(request)));
      return sessionAnswer(request, reply, done);
    },
  );

  app.post(
    '/api/auth/2fa/enroll',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Enrollment at sign-in: the TOTP secret (base32) and its otpauth:// URL for the QR code',
        body: challengeRequestSchema,
        response: { 200: twoFactorSecretSchema, ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return withDelayHeader(reply, () => enrollWithChallenge(deps, request.body.challenge, meta(request)));
    },
  );

  app.post(
    '/api/auth/2fa/confirm',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Enrollment at sign-in: the first code; answers the session and ten recovery codes (shown once)',
        body: challengeCodeRequestSchema,
        response: { 200: enrollConfirmResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const done = await withDelayHeader(reply, () => confirmWithChallenge(deps, request.body, meta(request)));
      return { ...sessionAnswer(request, reply, done), recovery_codes: done.recoveryCodes };
    },
  );

  app.get(
    '/api/auth/2fa',
    {
      schema: {
        tags: ['auth'],
        summary: "The signed-in staff member's two-factor sign-in: enabled, required, recovery codes left",
        response: { 200: twoFactorStatusSchema, 401: errorSchema, 403: errorSchema },
      },
    },
    async (request) => twoFactorStatus(deps, request.auth!.user),
  );

  app.post(
    '/api/auth/2fa/setup',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Voluntary enrollment (staff): the current password; answers the secret and its otpauth:// URL',
        body: twoFactorSetupRequestSchema,
        response: { 200: twoFactorSecretSchema, ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return withDelayHeader(reply, () => startSetup(deps, request.auth!.user, request.body.password, meta(request)));
    },
  );

  app.post(
    '/api/auth/2fa/setup/confirm',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Voluntary enrollment (staff): the first code; answers ten recovery codes (shown once)',
        body: twoFactorSetupConfirmSchema,
        response: { 200: recoveryCodesSchema, ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const codes = await withDelayHeader(reply, () =>
        confirmSetup(deps, request.auth!.user, request.body.code, meta(request)),
      );
      return { recovery_codes: codes };
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
