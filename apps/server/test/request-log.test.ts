import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loggerOptions, queryNames, redactUrl, withoutQueries } from '../src/platform/http/logging.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** Every log line the apps of this file write: the server's own logger settings, into buildApp's `logStream`. */
const logLines: string[] = [];
const logStream = { write: (line: string) => void logLines.push(line) };

/** The request lines of the log ("incoming request"), parsed. */
const requestLines = () =>
  logLines
    .map((l) => JSON.parse(l) as { msg: string; req?: Record<string, unknown> })
    .filter((l) => l.req)
    .map((l) => l.req!);

describe('query names in logs', () => {
  it('are the decoded names the server reads; secret ones are masked by their decoded name', () => {
    expect(queryNames('/api/external/clients?%74oken=abc&page=1&tok%65n=x&a+b=1&=v&&flag')).toEqual([
      'token',
      'page',
      'a b',
      '',
      'flag',
    ]);
    expect(queryNames('/api/health')).toEqual([]);
    expect(queryNames('/api/x?%E0%A4%A=1')).toEqual(['%E0%A4%A']);
    expect(redactUrl('/api/external/clients?%74oken=abc&x=1')).toBe('/api/external/clients?%74oken=[redacted]&x=1');
    expect(redactUrl('/api/x?a=1&api_key=k1&TOKEN=t2&passwor%64=p3&access_token=t4')).toBe(
      '/api/x?a=1&api_key=[redacted]&TOKEN=[redacted]&passwor%64=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/api/x?tokens=1&mytoken=2')).toBe('/api/x?tokens=1&mytoken=2');
  });

  it('a logged database error keeps its code but not its detail, which names the row’s values', () => {
    const lines: string[] = [];
    // The server's settings, into a stream of the test's own.
    const options = loggerOptions('error') as pino.LoggerOptions;
    const log = pino(options, { write: (line: string) => void lines.push(line) });
    const err = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
      code: '23505',
      detail: 'Key (email)=(ivan.petrov@example.com) already exists.',
    });
    log.error({ err }, 'unhandled error');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"code":"23505"');
    expect(lines[0]).not.toContain('ivan.petrov@example.com');
  });

  it('are cut from free text (messages, stacks), the path kept', () => {
    expect(withoutQueries('in "/api/clients?search=a%40b.c&page=1" (GET)?')).toBe('in "/api/clients?[query]" (GET)?');
    expect(withoutQueries('GET /api/ws?token=abc failed; why?')).toBe('GET /api/ws?[query] failed; why?');
    expect(withoutQueries('no query here')).toBe('no query here');
  });
});

/**
 * Issue 20 §10: an affiliate token sent as `?%74oken=` (the server decodes the name and takes it), a session token as
 * `/api/ws?%74oken=`, and a CRM search by e-mail or phone reach the log only as parameter names.
 */
describe.each(dbKinds())('request logs on %s', (kind) => {
  let t: TestApp;
  let staff: string;
  let affiliateToken: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { LOG_LEVEL: 'info' }, { logStream });
    staff = (await t.userWithToken('superadmin')).token;
    const created = await t.inject({ method: 'POST', url: '/api/affiliate-tokens?name=LogPartner', token: staff });
    expect(created.statusCode, created.body).toBe(201);
    affiliateToken = created.json().token as string;
  });
  afterAll(() => t.close());

  it('never writes a token sent under an encoded name, nor the terms of a search; names only', async () => {
    logLines.length = 0;
    const external = await t.inject({
      method: 'GET',
      url: `/api/external/clients?%74oken=${encodeURIComponent(affiliateToken)}&limit=5`,
    });
    expect(external.statusCode, external.body).toBe(200); // the server did take it as the token
    const ws = await t.inject({ method: 'GET', url: `/api/ws?%74oken=${encodeURIComponent(staff)}` });
    expect(ws.statusCode).toBe(426); // the session was accepted, then the missing upgrade refused
    const email = 'log.search.person@example.test';
    const phone = '+77015550123';
    for (const search of [email, phone, 'Жанна Логова']) {
      const res = await t.inject({
        method: 'GET',
        url: `/api/clients?search=${encodeURIComponent(search)}&page=1`,
        token: staff,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const plain = await t.inject({ method: 'GET', url: `/api/external/clients?token=${affiliateToken}` });
    expect(plain.statusCode).toBe(200);

    const log = logLines.join('');
    // The requests were logged, by path and parameter names…
    const lines = requestLines();
    expect(lines).toContainEqual(expect.objectContaining({ path: '/api/external/clients', query: ['token', 'limit'] }));
    expect(lines).toContainEqual(expect.objectContaining({ path: '/api/ws', query: ['token'] }));
    expect(lines.filter((l) => l.path === '/api/clients')).toHaveLength(3);
    expect(lines).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/api/clients', query: ['search', 'page'] }),
    );
    // …and none of the values, whatever the encoding.
    for (const secret of [
      affiliateToken,
      encodeURIComponent(affiliateToken),
      affiliateToken.slice(0, 20),
      staff,
      staff.slice(0, 20),
      email,
      encodeURIComponent(email),
      'log.search.person',
      '77015550123',
      encodeURIComponent('Жанна'),
      'Жанна',
    ]) {
      expect(log, secret).not.toContain(secret);
    }
  });
});

/**
 * Issue 21 §5 with issue 20 §10: a request past its time bound is logged by its route's pattern, never its URL (the
 * query of a search carries e-mails and phones; a token may travel there too).
 */
describe.each(dbKinds())('the log line of a timed-out request on %s', (kind) => {
  let t: TestApp;
  let staff: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { LOG_LEVEL: 'info', REQUEST_TIMEOUT_MS: '500' }, { logStream });
    staff = (await t.userWithToken('superadmin')).token;
    // The session is looked up once before the database is held below.
    expect((await t.inject({ method: 'GET', url: '/api/clients?page=1', token: staff })).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('names the route, not the query', async () => {
    logLines.length = 0;
    const email = 'timed.out.search@example.test';
    // The clients table held (on PGlite the one connection is), so the search waits past its 0.5 s.
    const res = await t.db.transaction().execute(async (trx) => {
      await sql`lock table clients in access exclusive mode`.execute(trx);
      return t.inject({ method: 'GET', url: `/api/clients?search=${encodeURIComponent(email)}`, token: staff });
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'request_timeout' });
    const timedOut = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request timed out');
    expect(timedOut).toEqual([expect.objectContaining({ method: 'GET', route: '/api/clients' })]);
    // The held search finishes behind the answer; nothing it or the timeout wrote carries the term.
    // Fastify warns when the late handler's result finds the reply sent; waited for (up to 5 s), as it names the URL.
    for (let i = 0; i < 50 && !logLines.some((l) => l.includes('FST_ERR_REP_ALREADY_SENT')); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const log = logLines.join('');
    for (const secret of [email, encodeURIComponent(email), 'timed.out.search'])
      expect(log, secret).not.toContain(secret);
  });
});
