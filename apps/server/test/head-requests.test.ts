import { API_ROUTES } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../src/platform/db/index.js';
import { createTestApp, type TestApp } from './helpers.js';

/**
 * Monitors and load balancers probe with HEAD (issue 28 §2): every GET route answers HEAD with the GET's status and
 * headers and no body, under the GET's own access rules.
 */
/** The GET routes that answer a file (no HEAD: see the test below). */
const DOWNLOADS = [
  '/api/clients/export/excel',
  '/api/deposits/export/excel',
  '/api/trading/statement/export',
  '/api/trading/proofs',
];

describe('HEAD requests', () => {
  let t: TestApp;
  let staff: string;

  beforeAll(async () => {
    t = await createTestApp('pglite');
    staff = (await t.userWithToken('superadmin')).token;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers HEAD on the health probes with the GET status and no body', async () => {
    for (const url of ['/api/health', '/api/health/live']) {
      const get = await t.inject({ method: 'GET', url });
      const head = await t.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(200);
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.body, url).toBe('');
      expect(head.headers['content-type'], url).toBe(get.headers['content-type']);
    }
  });

  it('is not ready while the database lacks a migration this build knows, and ready again once it has it', async () => {
    // The migration table is kysely's own (not in the app's types): plain SQL.
    const removed = await sql<{ name: string; timestamp: string }>`
      delete from kysely_migration where name = ${LATEST_MIGRATION} returning name, timestamp`.execute(t.db);
    expect(removed.rows).toHaveLength(1);
    try {
      const behind = await t.inject({ method: 'GET', url: '/api/health' });
      expect(behind.statusCode).toBe(503);
      expect(behind.json()).toMatchObject({ status: 'degraded', db: 'ok', migrations: 'behind' });
      expect((await t.inject({ method: 'HEAD', url: '/api/health' })).statusCode).toBe(503);
      // Liveness does not ask the database: the process still answers.
      expect((await t.inject({ method: 'GET', url: '/api/health/live' })).statusCode).toBe(200);
    } finally {
      const { name, timestamp } = removed.rows[0]!;
      await sql`insert into kysely_migration (name, timestamp) values (${name}, ${timestamp})`.execute(t.db);
    }
    expect((await t.inject({ method: 'GET', url: '/api/health' })).json()).toMatchObject({ migrations: 'current' });
  });

  it('keeps the access rules of the GET: no session 401, a session 200 with no body', async () => {
    const anonymous = await t.inject({ method: 'HEAD', url: '/api/clients' });
    expect(anonymous.statusCode).toBe(401);
    const signedIn = await t.inject({ method: 'HEAD', url: '/api/clients', token: staff });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.body).toBe('');
    const client = await t.userWithToken('client');
    expect((await t.inject({ method: 'HEAD', url: '/api/clients', token: client.token })).statusCode).toBe(403);
  });

  it('offers no HEAD on a download: it would build the file and log an export nobody received', async () => {
    const before = await t.auditCount('client.export');
    const head = await t.inject({ method: 'HEAD', url: '/api/clients/export/excel', token: staff });
    expect(head.statusCode).toBe(404);
    expect(await t.auditCount('client.export')).toBe(before);
    expect((await t.inject({ method: 'GET', url: '/api/clients/export/excel', token: staff })).statusCode).toBe(200);
  });

  it('answers HEAD on every GET route without a path parameter but the downloads as its GET does, never 5xx', async () => {
    const routes = Object.keys(API_ROUTES)
      .filter((key) => key.startsWith('GET ') && !key.includes(':'))
      .map((key) => key.slice(4))
      .filter((url) => url !== '/api/ws' && !DOWNLOADS.includes(url));
    expect(routes.length).toBeGreaterThan(30);
    for (const url of routes) {
      const head = await t.inject({ method: 'HEAD', url, token: staff });
      // A HEAD that is not routed is a 404 its GET never gives; a GET may answer 404 itself (the latest price log head
      // before the first one is signed), and then so does its HEAD.
      const get = await t.inject({ method: 'GET', url, token: staff });
      expect(head.statusCode, url).toBe(get.statusCode);
      expect(head.statusCode, url).toBeLessThan(500);
      expect(head.body, url).toBe('');
    }
  });
});
