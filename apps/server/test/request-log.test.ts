import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryNames, redactUrl } from '../src/platform/http/logging.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** Every log line the apps of this file write: the server's own logger settings, into a destination stream here. */
const logLines = vi.hoisted(() => [] as string[]);
vi.mock('../src/platform/http/logging.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/platform/http/logging.js')>();
  return {
    ...real,
    loggerOptions: (level: string) => {
      const options = real.loggerOptions(level);
      if (!options || typeof options !== 'object') return options;
      return { ...options, stream: { write: (line: string) => void logLines.push(line) } };
    },
  };
});

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
    t = await createTestApp(kind, { LOG_LEVEL: 'info' });
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
