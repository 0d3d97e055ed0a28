import {
  API_ROUTE_CONDITIONS,
  API_ROUTES,
  ROLES,
  roleMayCallWith,
  type ApiRouteKey,
  type RouteAccess,
  type Role,
} from '@brokerage/shared';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGuard } from '../src/platform/auth/guard.js';
import { createSession } from '../src/platform/auth/sessions.js';
import { WhitelistCache } from '../src/platform/access/whitelist.js';
import { SessionCache } from '../src/platform/auth/session-cache.js';
import { InProcessBus } from '../src/platform/bus/index.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

const routes = Object.entries(API_ROUTES) as [string, RouteAccess][];

function concretePath(path: string): string {
  return path
    .replace(':id', path.startsWith('/api/users') ? '00000000-0000-4000-8000-000000000000' : '999999')
    .replace(/:(\w+)/g, '999999');
}

describe.each(dbKinds())('route × role on %s', (kind) => {
  let t: TestApp;
  const users = new Map<Role, { id: string; role: Role }>();

  beforeAll(async () => {
    t = await createTestApp(kind);
    for (const role of ROLES) {
      const u = await t.createUser(role);
      users.set(role, { id: u.id, role });
    }
  });
  afterAll(() => t.close());

  it('registers exactly the routes of the permission table', () => {
    expect([...t.app.apiRoutes].sort()).toEqual(Object.keys(API_ROUTES).sort());
  });

  // A route with a condition (API_ROUTE_CONDITIONS) is called twice: without the parameter (the narrower rule) and with it.
  const calls: [string, RouteAccess, Record<string, string>][] = routes.flatMap(([key, access]) => {
    const condition = (API_ROUTE_CONDITIONS as Record<string, { without: string }>)[key];
    return condition
      ? [
          [key, access, {}],
          [key, access, { [condition.without]: '999999' }],
        ]
      : [[key, access, {}]];
  });

  it.each(calls)('%s answers each role exactly as the table says (%s, query %o)', async (key, access, query) => {
    const [method, path] = key.split(' ') as [string, string];
    const search = new URLSearchParams(query).toString();
    const url = concretePath(path) + (search ? `?${search}` : '');
    const payload = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;

    const anonymous = await t.inject({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
    if (access === 'public') expect(anonymous.statusCode).not.toBe(401);
    else expect(anonymous.statusCode, `${key} anonymous`).toBe(401);
    expect(anonymous.statusCode).toBeLessThan(500);

    for (const role of ROLES) {
      // A fresh session per call: some routes (logout) end the session they are called with.
      const token = await createSession(
        t.db,
        users.get(role)!,
        { staffIdleSeconds: 900, clientIdleSeconds: 900 },
        {
          ip: '127.0.0.1',
          userAgent: 'test',
        },
      );
      const res = await t.inject({ method: method as 'GET', url, token, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${key} as ${role}: ${res.body}`).toBeLessThan(500);
      if (roleMayCallWith(role, key as ApiRouteKey, query)) {
        expect([401, 403], `${key} as ${role} should pass the guard: ${res.body}`).not.toContain(res.statusCode);
      } else if (access === 'affiliate_token') {
        // A session of any role is no affiliate token: the external API answers it as it answers a missing token.
        expect(res.statusCode, `${key} as ${role} should be refused as unauthenticated`).toBe(401);
        expect(res.json().detail).toBe('Access denied');
      } else {
        expect(res.statusCode, `${key} as ${role} should be refused`).toBe(403);
        expect(res.json().detail).toBeTruthy();
      }
    }
  });
});

describe('the route registry', () => {
  it('refuses to register a route missing from the permission table', async () => {
    const app = Fastify();
    registerGuard(app, {
      db: {} as never,
      whitelist: {} as WhitelistCache,
      sessions: new SessionCache({} as never),
      bus: new InProcessBus(),
    });
    expect(() => app.get('/api/not-in-the-table', async () => ({}))).toThrow(/not in the permission table/);
  });
});
