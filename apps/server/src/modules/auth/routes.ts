import {
  acceptedSchema,
  emailChangeRequestSchema,
  invitationAcceptSchema,
  invitationInfoSchema,
  invitationQuerySchema,
  passwordResetConfirmSchema,
  passwordResetRequestSchema,
  profileUpdateSchema,
  verifyEmailRequestSchema,
  verifyEmailResponseSchema,
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
import { login, logout, registerClient, registerStaff, SignInDelayed, toUser, type LoginOutcome } from './service.js';
import { me, requestEmailChange, resendVerification, updateProfile, verifyEmail } from './email-verification.js';
import { confirmPasswordReset, requestPasswordReset } from './password-reset.js';
import { acceptInvitation, invitationInfo } from './invitations.js';
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

  /** What /api/auth/login answers for a right password (also the invitation's acceptance). */
  function loginAnswer(request: FastifyRequest, reply: FastifyReply, outcome: LoginOutcome) {
    if (outcome.kind !== 'session') {
      reply.header('cache-control', 'no-store');
      return outcome.kind === 'enroll'
        ? { enrollment_required: true as const, challenge: outcome.challenge }
        : { otp_required: true as const, challenge: outcome.challenge };
    }
    return sessionAnswer(request, reply, outcome);
  }

  /**
   * Sessions ended outside the routes the guard knows (AUTH_CHANGING_ROUTES): this process's caches go before the
   * answer, and every other process is told, as the guard does for those routes.
   */
  function announceRevocation() {
    app.sessionCache.invalidateAll();
    deps.whitelist.invalidate();
    deps.bus.publish({ type: 'auth.changed' });
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
      return loginAnswer(request, reply, outcome);
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
    async (request) => me(deps, request.auth!.user.id),
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
      const { user, invitationExpiresAt } = await registerStaff(deps, request.body, request.auth!.actor);
      return reply.status(201).send(toStaffMember(user, 0, 0, invitationExpiresAt));
    },
  );

  // ---- Issue 22: verified addresses, the mail settings, password reset, staff invitations ----

  app.post(
    '/api/auth/verify-email',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Open an e-mail verification link: the address it was sent to is verified',
        description:
          'The token of `PUBLIC_URL/verify-email?token=…` (24 h, single use). For an e-mail change the new address ' +
          'replaces the old one now (409 `email_taken` if another account took it meanwhile). An unknown, used or ' +
          'expired token answers 400 `link_invalid`, `link_used` or `link_expired`.',
        body: verifyEmailRequestSchema,
        response: { 200: verifyEmailResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { email } = await verifyEmail(deps, request.body.token, meta(request));
      return { ok: true as const, email };
    },
  );

  app.post(
    '/api/auth/verify-email/resend',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Send the verification link again (clients): at most once a minute and ten times a day',
        description:
          'To the new address of a pending e-mail change, else to the account’s unverified address. 409 ' +
          '`email_already_verified` when nothing waits; 429 `resend_too_soon` or `resend_daily_limit` with Retry-After.',
        response: { 202: acceptedSchema, ...errors },
      },
    },
    async (request, reply) => {
      await resendVerification(deps, request.auth!.user.id, meta(request));
      return reply.status(202).send({ ok: true as const });
    },
  );

  app.post(
    '/api/auth/email-change',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Change the e-mail (clients): the new address gets a link and replaces the old one when it is opened',
        description:
          'The current password is required (400 `password_wrong`). The old address is told. 409 `email_taken` when ' +
          'another account has the address; the verification mail limits of the resend apply (429).',
        body: emailChangeRequestSchema,
        response: { 202: acceptedSchema, ...errors },
      },
    },
    async (request, reply) => {
      await withDelayHeader(reply, () => requestEmailChange(deps, request.auth!.user, request.body, meta(request)));
      return reply.status(202).send({ ok: true as const });
    },
  );

  app.put(
    '/api/auth/profile',
    {
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user’s mail settings: language, non-security mail off, the daily digest (staff)',
        body: profileUpdateSchema,
        response: { 200: meResponseSchema, ...errors },
      },
    },
    async (request) => updateProfile(deps, request.auth!.user, request.body, meta(request)),
  );

  app.post(
    '/api/auth/password-reset',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Forgot password: a reset link by e-mail (clients and staff)',
        description:
          'Always 202 `{ok:true}` with the same body, whether or not the address belongs to an account; only a live ' +
          'account gets the e-mail with `PUBLIC_URL/reset-password?token=…` (1 h, single use). At most 3 requests an ' +
          'hour per address and 20 per client address: 429 `password_reset_limited` with Retry-After.',
        body: passwordResetRequestSchema,
        response: { 202: acceptedSchema, ...errors },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(deps, request.body.email, meta(request));
      return reply.status(202).send({ ok: true as const });
    },
  );

  app.post(
    '/api/auth/password-reset/confirm',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with the reset link: every session of the account ends',
        description:
          'Also lifts the sign-in delays of the address and e-mails the owner that the password changed. Two-factor ' +
          'sign-in stays as it was. An unknown, used or expired token answers 400 `link_invalid`, `link_used` or ' +
          '`link_expired`.',
        body: passwordResetConfirmSchema,
        response: { 200: okSchema, ...errors },
      },
    },
    async (request) => {
      await confirmPasswordReset(deps, request.body, meta(request));
      announceRevocation();
      return { ok: true as const };
    },
  );

  app.get(
    '/api/auth/invitation',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'A staff invitation link: who is invited (for the page that sets the password)',
        description: 'An unknown, used or expired token answers 400 `link_invalid`, `link_used` or `link_expired`.',
        querystring: invitationQuerySchema,
        response: { 200: invitationInfoSchema, ...errors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return invitationInfo(deps, request.query.token);
    },
  );

  app.post(
    '/api/auth/invitation/accept',
    {
      config: { rateLimit: loginRate },
      schema: {
        tags: ['auth'],
        summary: 'Accept a staff invitation: set the password, then sign in as /api/auth/login does',
        description:
          'The address counts as verified. The answer is that of a right password at /api/auth/login: the session, or ' +
          '`{enrollment_required, challenge}` for a role that must enroll in two-factor sign-in.',
        body: invitationAcceptSchema,
        response: { 200: loginResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const outcome = await withDelayHeader(reply, () => acceptInvitation(deps, request.body, meta(request)));
      return loginAnswer(request, reply, outcome);
    },
  );
};
