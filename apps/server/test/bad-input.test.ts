import { API_ROUTES } from '@brokerage/shared';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** The parts of a JSON schema (as the OpenAPI document gives them) that the cases are built from. */
interface FieldSchema {
  type?: string;
  items?: FieldSchema;
  maxItems?: number;
  enum?: string[];
  format?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}
interface ObjectSchema {
  properties: Record<string, FieldSchema>;
  required?: string[];
}
interface Operation {
  parameters?: { in: string; name: string; schema: FieldSchema }[];
  requestBody?: { content: { 'application/json'?: { schema: ObjectSchema } } };
}
interface RouteShape {
  key: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: ObjectSchema;
  query: Record<string, FieldSchema>;
}

const LONG = 'x'.repeat(10_000);

/** A value the field accepts, so that a case can make exactly one field wrong. */
function validValue(name: string, schema: FieldSchema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (name.includes('email')) return 'bad.input@test.local';
  if (name.includes('password')) return 'secret-123';
  if (name === 'ip_address') return '127.0.0.1';
  if (name === 'phone') return '+77011234567';
  return 'Some text';
}

function wrongType(schema: FieldSchema): unknown {
  return schema.type === 'string' ? 12345 : 'not-a-number';
}

/** Every answer to bad input: a 4xx with a JSON {detail} that is a non-empty string, never a 5xx. */
function expectRefusal(res: LightMyRequestResponse, label: string, field?: string): void {
  expect(res.statusCode, `${label}: ${res.body}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${label}: ${res.body}`).toBeLessThan(500);
  expect(res.headers['content-type'], label).toMatch(/^application\/json/);
  const detail: unknown = res.json().detail;
  expect(typeof detail, label).toBe('string');
  expect((detail as string).length, label).toBeGreaterThan(0);
  if (field) expect(detail, label).toContain(field);
}

describe.each(dbKinds())('bad input to every route on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let clientToken: string;
  let affiliateToken: string;
  let targetId: string;
  const routes: RouteShape[] = [];

  beforeAll(async () => {
    // This file calls every route many times over from one address: the per-address limits would answer 429.
    t = await createTestApp(kind, {
      LOGIN_RATE_PER_MINUTE: '100000',
      EXTERNAL_RATE_PER_MINUTE: '100000',
      API_RATE_PER_MINUTE: '100000',
    });
    token = (await t.userWithToken('superadmin')).token;
    // The external API takes an affiliate token, not a session.
    affiliateToken = (
      await t.inject({ method: 'POST', url: '/api/affiliate-tokens?name=Bad%20Input%20Partner', token })
    ).json().token;
    clientToken = (await t.userWithToken('client')).token;
    targetId = (await t.createUser('sales_manager')).id;
    // The shapes of the routes come from the OpenAPI document, which is built from the routes' own schemas.
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    for (const key of Object.keys(API_ROUTES)) {
      // The WebSocket upgrade has no OpenAPI shape; its messages are checked in live-updates.test.ts.
      if (key === 'GET /api/ws') continue;
      const [method, path] = key.split(' ') as [RouteShape['method'], string];
      const op = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      if (!op) throw new Error(`${key} is missing from the OpenAPI document`);
      const query = Object.fromEntries(
        (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]),
      );
      // Field-by-field cases need a JSON object body: an array body (a token's whitelist) has no fields, and a multipart
      // body (POST /api/upload-clients, a file) is not JSON — lead-import.test.ts sends it bad files.
      const schema = op.requestBody?.content['application/json']?.schema;
      const body = schema && 'properties' in schema ? schema : undefined;
      routes.push({ key, method, path, query, ...(body ? { body } : {}) });
    }
  });
  afterAll(() => t.close());

  const urlOf = (route: RouteShape) =>
    route.path.replace(/:(\w+)/g, (_m, name: string) =>
      name === 'id' && route.path.startsWith('/api/users') ? targetId : '1',
    );
  // Client-only routes refuse staff before reading the body, so they are called as a client.
  const tokenOf = (route: RouteShape) => {
    const access = (API_ROUTES as Record<string, string>)[route.key];
    return access === 'client' ? clientToken : access === 'affiliate_token' ? affiliateToken : token;
  };
  /** The external API answers in English whatever Accept-Language says (partners are programs). */
  const inEnglish = (route: RouteShape) => (API_ROUTES as Record<string, string>)[route.key] === 'affiliate_token';
  const call = (route: RouteShape, opts: Partial<InjectOptions>) =>
    t.inject({ method: route.method, url: urlOf(route), token: tokenOf(route), ...opts } as InjectOptions & {
      token: string;
    });
  const validBody = (body: ObjectSchema) =>
    Object.fromEntries(Object.entries(body.properties).map(([name, schema]) => [name, validValue(name, schema)]));

  it('finds a body or a query on the routes that take one', () => {
    const withBody = routes.filter((r) => r.body).map((r) => r.key);
    const withQuery = routes.filter((r) => Object.keys(r.query).length > 0).map((r) => r.key);
    expect(withBody).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/auth/register',
        'PUT /api/users/:id',
        'POST /api/ip-whitelist',
      ]),
    );
    expect(withQuery).toEqual(expect.arrayContaining(['GET /api/users', 'GET /api/audit']));
  });

  it('answers missing fields with 400 naming each of them', async () => {
    for (const route of routes.filter((r) => r.body)) {
      const res = await call(route, { payload: {} });
      for (const field of route.body!.required ?? []) expectRefusal(res, `${route.key} without ${field}`, field);
      expect(res.statusCode).toBe(400);
    }
  });

  it('answers a wrong type in each field with 400 naming it', async () => {
    for (const route of routes.filter((r) => r.body)) {
      for (const [field, schema] of Object.entries(route.body!.properties)) {
        const payload = { ...validBody(route.body!), [field]: wrongType(schema) };
        const res = await call(route, { payload });
        expectRefusal(res, `${route.key} ${field}=number`, field);
        expect(res.statusCode).toBe(400);
        const asObject = await call(route, { payload: { ...validBody(route.body!), [field]: { nested: true } } });
        expectRefusal(asObject, `${route.key} ${field}={}`, field);
      }
    }
  });

  it('answers a 10,000-character string in each field with 400 naming it', async () => {
    for (const route of routes.filter((r) => r.body)) {
      for (const field of Object.keys(route.body!.properties)) {
        const res = await call(route, { payload: { ...validBody(route.body!), [field]: LONG } });
        expectRefusal(res, `${route.key} ${field}=long`, field);
        expect(res.statusCode).toBe(400);
      }
    }
  });

  it('answers an unknown field with 400 naming it', async () => {
    for (const route of routes.filter((r) => r.body)) {
      const res = await call(route, { payload: { ...validBody(route.body!), is_superadmin: true } });
      expectRefusal(res, `${route.key} unknown field`, 'is_superadmin');
      expect(res.statusCode).toBe(400);
    }
  });

  it('answers an array, a string or null instead of the object with 400', async () => {
    for (const route of routes.filter((r) => r.body)) {
      for (const raw of ['[]', '[{"a":1}]', '"text"', 'null', '42']) {
        const res = await call(route, { payload: raw, headers: { 'content-type': 'application/json' } });
        expectRefusal(res, `${route.key} body ${raw}`);
        expect(res.statusCode).toBe(400);
      }
    }
  });

  it('answers a NUL character, which the database cannot store, with 400 naming the field', async () => {
    for (const route of routes.filter((r) => r.body)) {
      for (const [field, schema] of Object.entries(route.body!.properties)) {
        if (schema.type !== 'string' || schema.enum) continue;
        const value = `${String(validValue(field, schema))}\u0000`;
        const res = await call(route, { payload: { ...validBody(route.body!), [field]: value } });
        expectRefusal(res, `${route.key} ${field} with NUL`, field);
      }
    }
  });

  it('answers malformed JSON, an empty JSON body and a missing body with 400', async () => {
    for (const route of routes.filter((r) => r.method === 'POST' || r.method === 'PUT')) {
      const malformed = await call(route, { payload: '{"a":', headers: { 'content-type': 'application/json' } });
      expectRefusal(malformed, `${route.key} malformed`);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().detail).toBe(
        inEnglish(route) ? 'The request body is not valid JSON' : 'Некорректный JSON в теле запроса',
      );
      if (!route.body) continue;
      const empty = await call(route, { payload: '', headers: { 'content-type': 'application/json' } });
      expectRefusal(empty, `${route.key} empty`);
      expect(empty.statusCode).toBe(400);
      const none = await call(route, {});
      expectRefusal(none, `${route.key} no body`);
      expect(none.statusCode).toBe(400);
    }
  });

  it('answers a body of another content type with 415, and one over 256 KB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(300 * 1024) });
    for (const route of routes.filter((r) => r.method === 'POST' || r.method === 'PUT')) {
      const tooBig = await call(route, { payload: big, headers: { 'content-type': 'application/json' } });
      expectRefusal(tooBig, `${route.key} 300 KB`);
      expect(tooBig.statusCode).toBe(413);
      if (!route.body) continue;
      const text = await call(route, {
        payload: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectRefusal(text, `${route.key} form`);
      expect(text.statusCode).toBe(415);
    }
  });

  it('answers bad query parameters with 400 naming them', async () => {
    for (const route of routes.filter((r) => Object.keys(r.query).length > 0)) {
      const base = urlOf(route);
      const cases: [string, string][] = [[`${base}?unknown_param=1`, 'unknown_param']];
      for (const [name, declared] of Object.entries(route.query)) {
        // A parameter that may be repeated is an array of items: given twice is fine there, past its limit is not.
        const repeatable = declared.type === 'array';
        const schema = repeatable ? (declared.items ?? {}) : declared;
        const wrong = schema.type === 'integer' ? 'abc' : schema.enum || schema.format ? 'not-valid' : undefined;
        if (wrong) cases.push([`${base}?${name}=${wrong}`, name]);
        if (schema.type === 'integer') {
          cases.push([`${base}?${name}=1.5`, name]);
          cases.push([`${base}?${name}=${(schema.maximum ?? 1e9) + 1}`, name]);
          // 0 is out of range unless the parameter starts at 0 (an offset).
          if ((schema.minimum ?? 1) > 0) cases.push([`${base}?${name}=0`, name]);
        }
        cases.push([`${base}?${name}=${LONG}`, name]);
        const one = `${name}=${encodeURIComponent(String(validValue(name, schema)))}`;
        if (!repeatable) cases.push([`${base}?${one}&${name}=x`, name]);
        else
          cases.push([`${base}?${Array.from({ length: (declared.maxItems ?? 100) + 1 }, () => one).join('&')}`, name]);
      }
      for (const [url, field] of cases) {
        const res = await t.inject({ method: route.method, url, token: tokenOf(route) });
        expectRefusal(res, `${route.key} ${url.slice(0, 80)}`, field);
        expect(res.statusCode, url.slice(0, 80)).toBe(400);
      }
    }
  });

  it('never fails on odd but well-formed query values', async () => {
    for (const url of [
      '/api/users?search=%00',
      '/api/users?search=%25%5F%5C',
      `/api/users?search=${encodeURIComponent("'; drop table users; --")}`,
      '/api/users?page=100000&per_page=200',
      '/api/audit?action=%00',
      '/api/audit?date_to=9999-12-31',
      '/api/audit?date_from=0001-01-01&date_to=9999-12-31',
    ]) {
      const res = await t.inject({ method: 'GET', url, token });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) expectRefusal(res, url);
    }
    expect((await t.db.selectFrom('users').select('id').execute()).length).toBeGreaterThan(0);
  });

  it('answers a malformed path parameter with 400 naming it', async () => {
    const cases: [InjectOptions['method'], string, unknown][] = [
      ['PUT', '/api/users/not-a-uuid', { name: 'A', email: 'a@test.local', role: 'admin' }],
      ['PUT', '/api/users/123', { name: 'A', email: 'a@test.local', role: 'admin' }],
      ['PUT', '/api/users/not-a-uuid/password', { new_password: 'secret-123' }],
      ['DELETE', '/api/users/not-a-uuid', undefined],
      ['DELETE', '/api/ip-whitelist/abc', undefined],
      ['DELETE', '/api/ip-whitelist/1.5', undefined],
      ['DELETE', '/api/ip-whitelist/-1', undefined],
      ['DELETE', '/api/ip-whitelist/0', undefined],
      ['DELETE', '/api/ip-whitelist/1e3x', undefined],
    ];
    for (const [method, url, payload] of cases) {
      const res = await t.inject({
        method,
        url,
        token,
        ...(payload ? { payload: payload as Record<string, unknown> } : {}),
      });
      expectRefusal(res, `${method} ${url.slice(0, 60)}`, 'id');
      expect(res.statusCode, url.slice(0, 60)).toBe(400);
    }
  });

  it('answers a path the router cannot take (an over-long parameter, broken percent-encoding) with 400 and a detail', async () => {
    for (const [method, url] of [
      ['DELETE', `/api/users/${'a'.repeat(5000)}`],
      ['PUT', `/api/users/${'a'.repeat(101)}/password`],
      ['DELETE', '/api/ip-whitelist/%E0%A4%A'],
      ['GET', '/api/users/%'],
    ] as const) {
      const res = await t.inject({ method, url, token });
      expectRefusal(res, `${method} ${url.slice(0, 60)}`);
      expect(res.statusCode, url.slice(0, 60)).toBe(400);
      expect(res.json().detail).toBe('Некорректный адрес запроса');
    }
  });

  it('answers a well-formed id that matches nothing with 404, however large', async () => {
    for (const url of [
      '/api/ip-whitelist/999999',
      '/api/ip-whitelist/2147483648',
      '/api/ip-whitelist/9007199254740991',
    ]) {
      const res = await t.inject({ method: 'DELETE', url, token });
      expectRefusal(res, url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(404);
    }
    const res = await t.inject({ method: 'DELETE', url: '/api/users/00000000-0000-4000-8000-000000000000', token });
    expect(res.statusCode).toBe(404);
  });

  it('answers an unknown API path with a JSON 404 naming it', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/no-such-thing?x=1', token });
    expectRefusal(res, 'unknown path', '/api/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect((await t.inject({ method: 'PATCH', url: '/api/users/x', token })).statusCode).toBe(404);
  });
});
