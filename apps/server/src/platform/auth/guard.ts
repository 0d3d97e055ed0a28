import { API_ROUTES, isStaffRole, roleMayCall, type RouteAccess } from '@brokerage/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/index.js';
import type { UserRow } from '../db/types.js';
import { HttpError } from '../http/errors.js';
import type { WhitelistCache } from '../access/whitelist.js';
import { writeAudit } from '../audit/audit.js';
import { actorFromUser, type Actor } from './actor.js';
import type { EventBus } from '../bus/index.js';
import type { SessionCache } from './session-cache.js';
import { SESSION_COOKIE } from './sessions.js';

export interface RequestAuth {
  user: UserRow;
  sessionId: string;
  actor: Actor;
  via: 'cookie' | 'bearer';
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API route registered, as 'METHOD /path' (the route × role test walks it). */
    apiRoutes: string[];
    /** The resolved sessions this process serves from memory (tests look at it). */
    sessionCache: SessionCache;
  }
  interface FastifyRequest {
    auth: RequestAuth | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/**
 * Routes whose success revokes sessions or changes who may call what: when one answers 2xx, the session and whitelist
 * caches of this process are dropped before the answer leaves, and every other process is told over the bus
 * ('auth.changed'). A change made elsewhere (the command line, a hand edit) is announced by the database's triggers on
 * PostgreSQL (migration 0020) and in any case seen within SESSION_CACHE_TTL_MS (platform/auth/session-cache.ts).
 */
export const AUTH_CHANGING_ROUTES = new Set<string>([
  'POST /api/auth/logout',
  'POST /api/auth/2fa/setup/confirm',
  'PUT /api/users/:id',
  'PUT /api/users/:id/password',
  'DELETE /api/users/:id',
  'PUT /api/clients/:id/change-password',
  'POST /api/ip-whitelist',
  'DELETE /api/ip-whitelist/:id',
]);

/** Routes a staff member may call from an address outside the whitelist (to end their session). */
const WHITELIST_EXEMPT = new Set<string>(['POST /api/auth/logout']);

export function routeKey(method: string, url: string): string {
  return `${method} ${url}`;
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * Whether a cookie-authenticated request comes from our own pages (D8, OWASP CSRF cheat sheet): its Origin is this
 * host; without an Origin header (some browsers omit it on same-origin requests), a Referer of this host. Neither
 * header → refused, so a request that hides where it comes from cannot ride on the cookie.
 */
export function fromOwnPages(request: FastifyRequest): boolean {
  const host = request.headers.host;
  const origin = request.headers.origin;
  if (origin !== undefined) return sameHost(origin, host);
  const referer = request.headers.referer;
  return referer !== undefined && sameHost(referer, host);
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/**
 * The route guard. Every /api route must be listed in the shared route registry (API_ROUTES); the registry's rule is
 * attached to the route when it is registered, and a route missing from it stops the server from starting.
 * On each request: resolve the session (cookie or Bearer), then apply the route's rule, the staff IP whitelist
 * and, for cookie-authenticated writes, the Origin check. Refusals are 401 or 403, and every 403 is audited (onError).
 */
export function registerGuard(
  app: FastifyInstance,
  deps: { db: Db; whitelist: WhitelistCache; sessions: SessionCache; bus: EventBus },
): void {
  app.decorateRequest('auth', null);
  app.decorate('sessionCache', deps.sessions);
  const stopListening = deps.sessions.listen(deps.bus);
  const unsubscribe = deps.bus.subscribe((event) => {
    if (event.type === 'auth.changed') deps.whitelist.invalidate();
  });
  app.addHook('onClose', async () => {
    stopListening();
    unsubscribe();
  });
  app.decorate('apiRoutes', [] as string[]);

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      // HEAD answers every GET (exposeHeadRoutes) under the GET's own access: the registry lists the GET.
      const key = routeKey(method === 'HEAD' ? 'GET' : method, route.url);
      const access = (API_ROUTES as Record<string, RouteAccess>)[key];
      if (!access) throw new Error(`route ${key} is not in the permission table (packages/shared API_ROUTES)`);
      if (method !== 'HEAD') app.apiRoutes.push(key);
      route.config = { ...(route.config as object), access };
    }
  });

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access) return; // static files, docs, not-found
    // The external API authenticates partners by affiliate token itself (modules/external-api); a session is no key
    // to it, and its Bearer header is a token, not a session.
    if (access === 'affiliate_token') return;

    const bearer = bearerToken(request);
    const cookie = request.cookies[SESSION_COOKIE];
    const token = bearer ?? cookie;
    if (token) {
      const resolved = await deps.sessions.resolve(token);
      if (resolved) {
        request.auth = {
          user: resolved.user,
          sessionId: resolved.sessionId,
          actor: actorFromUser(resolved.user, request.ip),
          via: bearer ? 'bearer' : 'cookie',
        };
      }
    }
    if (access === 'public') return;

    const auth = request.auth;
    if (!auth) throw new HttpError(401, 'not_authenticated');
    const key = routeKey(request.method, request.routeOptions.url ?? '');

    // A cookie rides along with any request the browser makes; a write must come from our own pages (D8).
    if (auth.via === 'cookie' && !['GET', 'HEAD', 'OPTIONS'].includes(request.method) && !fromOwnPages(request)) {
      throw new HttpError(403, 'bad_origin');
    }

    if (isStaffRole(auth.user.role) && !WHITELIST_EXEMPT.has(key) && !(await deps.whitelist.allows(request.ip))) {
      throw new HttpError(403, 'ip_not_allowed', { ip: request.ip });
    }

    if (!roleMayCall(auth.user.role, access)) throw new HttpError(403, 'forbidden');
  });

  // A revocation is honoured at once: the caches go before the answer does (the route's transaction has committed).
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode >= 400 || request.method === 'GET') return;
    if (!AUTH_CHANGING_ROUTES.has(routeKey(request.method, request.routeOptions.url ?? ''))) return;
    deps.sessions.invalidateAll();
    deps.whitelist.invalidate();
    deps.bus.publish({ type: 'auth.changed' });
  });

  // Every 403 to a signed-in caller is audited here, whether this guard or a service rule (an admin creating a
  // superadmin, say) refused it; onError runs before the answer is sent.
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof HttpError) || error.statusCode !== 403 || !request.auth) return;
    await refuse(request, request.auth.actor, routeKey(request.method, request.routeOptions.url ?? ''), error.code);
  });

  async function refuse(request: FastifyRequest, actor: Actor, key: string, reason: string) {
    try {
      await writeAudit(deps.db, actor, {
        action: 'access.denied',
        entityType: 'route',
        entityId: key,
        after: { reason, url: request.url.split('?')[0] },
      });
    } catch (err) {
      request.log.error({ err }, 'could not write the audit row of a refused access');
    }
  }
}
