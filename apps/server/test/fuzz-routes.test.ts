import { API_ROUTES, ROLES, roleMayCallWith, type ApiRouteKey, type RouteAccess, type Role } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../src/platform/auth/sessions.js';
import { createTestApp, type TestApp } from './helpers.js';
import { registerClient } from './trading-helpers.js';

/**
 * Proof by fuzz (issue 13 item 9). Reads the OpenAPI document the app serves and, for every route in API_ROUTES,
 * sends bodies, query strings and path parameters generated from the route's schema, then broken (wrong types,
 * missing and extra fields, huge strings, nesting thousands deep, negative, NaN and huge numbers, bad ids, bad JSON,
 * bad multipart) — as anonymous, as every role, as a client and with an affiliate token. No answer may be a 5xx,
 * none may carry a stack trace or SQL, and every refusal (4xx) has a `detail`. A route in API_ROUTES and not in the
 * document, or the other way round, fails the test.
 *
 * The identities a route admits get every case (for staff: its most and its least powerful role); the others get a
 * few (a refusal must still be clean).
 * PostgreSQL only (CI runs it with REQUIRE_PG=1); the app's rate limits are raised so that they do not answer instead.
 */
if (process.env.REQUIRE_PG === '1' && !process.env.TEST_DATABASE_URL)
  throw new Error('REQUIRE_PG=1 but TEST_DATABASE_URL is not set: the fuzz test needs PostgreSQL');

/** WebSocket upgrades: @fastify/swagger leaves them out of the document (OpenAPI 3.0 has no WebSocket operation). */
const NOT_HTTP_OPERATIONS = new Set(['GET /api/ws']);

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  $ref?: string;
};
interface Operation {
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema; example?: unknown }> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

let doc: Doc;
function resolve(s: Schema | undefined): Schema {
  let out = s ?? {};
  for (let i = 0; i < 10 && out.$ref; i++) {
    const name = out.$ref.split('/').pop()!;
    out = doc.components?.schemas?.[name] ?? {};
  }
  return out;
}

/** A value the schema accepts, as far as a generator can tell (a pattern or a refinement may still refuse it). */
function sample(raw: Schema | undefined, name = '', depth = 0): unknown {
  const s = resolve(raw);
  if (s.example !== undefined) return s.example;
  if (s.enum && s.enum.length > 0) return s.enum[0];
  if (s.anyOf?.length) return sample(s.anyOf[0], name, depth);
  if (s.oneOf?.length) return sample(s.oneOf[0], name, depth);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((x) => sample(x, name, depth) as object));
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (depth > 6) return null;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sample(v, k, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items, name, depth + 1));
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : 0;
      const v = Math.max(min + (s.exclusiveMinimum === true ? 1 : 0), 1);
      return typeof s.maximum === 'number' ? Math.min(v, s.maximum) : v;
    }
    case 'boolean':
      return true;
    case 'string':
      return sampleString(s, name);
    default:
      return 'x';
  }
}
function sampleString(s: Schema, name: string): string {
  if (s.format === 'email' || /email/.test(name)) return 'fuzz.sample@example.com';
  if (s.format === 'uuid' || /(^|_)(actor|user|manager)_?id$/.test(name)) return '00000000-0000-4000-8000-00000000f022';
  if (s.format === 'date' || /date/.test(name)) return '2026-11-20';
  if (s.format === 'date-time') return '2026-11-20T10:00:00.000Z';
  if (s.format === 'uri' || /url/.test(name)) return 'https://example.com/hook';
  if (/phone/.test(name)) return '+77011234567';
  if (/ip/.test(name)) return '10.20.30.40';
  if (/expiry/.test(name)) return '12/30';
  if (/card_number/.test(name)) return '4111111111111111';
  if (/asset|symbol/.test(name)) return 'EURUSD';
  const len = Math.max(s.minLength ?? 1, Math.min(8, s.maxLength ?? 8));
  return 'fuzz'.repeat(len).slice(0, len);
}

const HUGE = 'Ж'.repeat(50_000);
const INJECTION = `'); select pg_sleep(0); drop table users; --\u0000\u202e<script>`;
const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** Wrong values for one field, of every kind. */
function brokenValues(s: Schema): unknown[] {
  const type = Array.isArray(resolve(s).type) ? (resolve(s).type as string[])[0] : resolve(s).type;
  return [
    type === 'string' ? 12345 : 'not-a-number',
    { nested: { deeper: [1, 2, 3] } },
    [1, 'two', null],
    null,
    true,
    HUGE,
    INJECTION,
    -1,
    0,
    1e308,
    -1e308,
    2 ** 64,
    Number.MAX_SAFE_INTEGER + 2,
    0.000001,
    100.005,
    '',
    '   ',
  ];
}

interface Case {
  what: string;
  path: string;
  query?: string;
  /** JSON value, or a raw string sent as-is with `contentType`. */
  payload?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

const BAD_IDS = [
  'abc',
  '-1',
  '0',
  '1.5',
  '1e3',
  '99999999999999999999999',
  '9223372036854775808',
  '%27%20or%201%3D1--',
  'A'.repeat(3000),
  '%00',
  'null',
  '00000000-0000-0000-0000-00000000000g',
  '%E2%80%AE',
];

function sampleParam(name: string, s: Schema | undefined, key: string): string {
  const r = resolve(s);
  if (r.format === 'uuid' || (name === 'id' && key.includes('/api/users')))
    return '00000000-0000-4000-8000-00000000f022';
  if (name === 'symbol') return 'EURUSD';
  return '1';
}

function casesFor(key: string, op: Operation, full: boolean): Case[] {
  const [method, template] = key.split(' ') as [string, string];
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const fill = (override: Record<string, string> = {}) =>
    template.replace(/:(\w+)/g, (_, name: string) => {
      const p = pathParams.find((x) => x.name === name);
      return override[name] ?? encodeURIComponent(sampleParam(name, p?.schema, key));
    });
  const validQuery = new URLSearchParams();
  for (const q of queryParams) {
    const v = sample(q.schema, q.name);
    if (v !== null && v !== undefined && typeof v !== 'object') validQuery.set(q.name, String(v));
  }
  const json = op.requestBody?.content['application/json'];
  const multipart = op.requestBody?.content['multipart/form-data'];
  const body = json ? (json.example ?? sample(json.schema)) : undefined;
  const cases: Case[] = [{ what: 'schema sample', path: fill(), query: validQuery.toString(), payload: body }];
  if (!full) {
    cases.push({ what: 'empty', path: fill(), payload: json ? {} : undefined });
    return cases;
  }

  // Path parameters: bad ids.
  for (const p of pathParams)
    for (const bad of BAD_IDS)
      cases.push({ what: `path ${p.name}=${bad.slice(0, 20)}`, path: fill({ [p.name]: bad }) });

  // Query strings: each parameter broken, unknown parameters, repeated parameters, a huge one.
  const q = (mutate: (u: URLSearchParams) => void) => {
    const u = new URLSearchParams(validQuery);
    mutate(u);
    return u.toString();
  };
  for (const p of queryParams.slice(0, 12)) {
    for (const bad of [
      '-1',
      'NaN',
      'Infinity',
      '1e309',
      '99999999999999999999',
      '',
      'abc',
      '[]',
      '{}',
      HUGE,
      INJECTION,
    ])
      cases.push({ what: `query ${p.name}=${bad.slice(0, 12)}`, path: fill(), query: q((u) => u.set(p.name, bad)) });
    cases.push({
      what: `query ${p.name} twice`,
      path: fill(),
      query: q((u) => {
        u.append(p.name, 'a');
        u.append(p.name, 'b');
      }),
    });
  }
  cases.push({ what: 'query unknown', path: fill(), query: q((u) => u.set('unexpected_field', '1')) });
  cases.push({ what: 'query nested keys', path: fill(), query: `${'a['.repeat(2000)}b${']'.repeat(2000)}=1` });
  cases.push({ what: 'query huge', path: fill(), query: `x=${'1'.repeat(60_000)}` });

  if (json || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) {
    const schema = resolve(json?.schema);
    const base = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    for (const payload of [{}, [], 'text', 42, true, null])
      cases.push({ what: `body ${JSON.stringify(payload)}`, path: fill(), payload });
    cases.push({ what: 'body extra field', path: fill(), payload: { ...base, unexpected_field: 1 } });
    cases.push({ what: 'body deep', path: fill(), raw: deep(5000), contentType: 'application/json' });
    cases.push({ what: 'body deep array', path: fill(), raw: deepArray(10_000), contentType: 'application/json' });
    cases.push({ what: 'body bad json', path: fill(), raw: '{"a": NaN, ', contentType: 'application/json' });
    cases.push({ what: 'body text/plain', path: fill(), raw: 'hello', contentType: 'text/plain' });
    cases.push({
      what: 'body huge array',
      path: fill(),
      payload: { ...base, items: Array.from({ length: 20_000 }, (_, i) => i) },
    });
    for (const [name, prop] of Object.entries(schema.properties ?? {}).slice(0, 14)) {
      if (schema.required?.includes(name)) {
        const { [name]: _dropped, ...rest } = base;
        cases.push({ what: `body without ${name}`, path: fill(), payload: rest });
      }
      for (const bad of brokenValues(prop))
        cases.push({
          what: `body ${name}=${JSON.stringify(bad)?.slice(0, 16)}`,
          path: fill(),
          payload: { ...base, [name]: bad },
        });
      cases.push({
        what: `body ${name}=NaN`,
        path: fill(),
        raw: JSON.stringify({ ...base, [name]: 0 }).replace(`"${name}":0`, `"${name}":NaN`),
        contentType: 'application/json',
      });
      cases.push({ what: `body ${name} deep`, path: fill(), payload: { ...base, [name]: JSON.parse(deep(2000)) } });
    }
    if (method === 'POST')
      cases.push({ what: 'huge idempotency key', path: fill(), payload: body, headers: { 'idempotency-key': HUGE } });
  }

  if (multipart) {
    const b = 'fuzzboundary';
    const part = (head: string, content: string) => `--${b}\r\n${head}\r\n\r\n${content}\r\n`;
    const file = (name: string, type: string, content: string) =>
      part(`Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}`, content);
    const bad: [string, string, string][] = [
      ['multipart no parts', `--${b}--\r\n`, b],
      [
        'multipart truncated',
        `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nname,em`,
        b,
      ],
      ['multipart wrong boundary', `${file('a.csv', 'text/csv', 'name,email\nA,a@b.co')}--${b}--\r\n`, 'other'],
      ['multipart field only', `${part('Content-Disposition: form-data; name="note"', 'x')}--${b}--\r\n`, b],
      [
        'multipart garbage file',
        `${file('a.xlsx', 'application/octet-stream', '\u0000\u0001PK\u0003garbage')}--${b}--\r\n`,
        b,
      ],
      ['multipart huge name', `${file('A'.repeat(5000) + '.csv', 'text/csv', 'a')}--${b}--\r\n`, b],
      [
        'multipart csv injection',
        `${file('a.csv', 'text/csv', `name,email,phone\n${INJECTION},x,${HUGE.slice(0, 5000)}\n`)}--${b}--\r\n`,
        b,
      ],
      [
        'multipart two files',
        `${file('a.csv', 'text/csv', 'name\na')}${file('b.csv', 'text/csv', 'name\nb')}--${b}--\r\n`,
        b,
      ],
      ['multipart no boundary', `${file('a.csv', 'text/csv', 'a')}`, ''],
    ];
    for (const [what, raw, boundary] of bad)
      cases.push({
        what,
        path: fill(),
        raw,
        contentType: boundary ? `multipart/form-data; boundary=${boundary}` : 'multipart/form-data',
      });
  }
  return cases;
}

const STACK = /\n\s+at [^\n]+[(\s](?:file:\/\/|\/)[^\n]+:\d+:\d+|node_modules\/|\/src\/[\w/.-]+\.ts\b/;
const SQL =
  /syntax error at or near|violates [\w-]+ constraint|relation "|column "[^"]*" (?:does not exist|of relation)|duplicate key value|invalid input syntax for type|out of range for type|value too long for type|current transaction is aborted|\bkysely\b|\bpg_catalog\b/i;

describe.runIf(process.env.TEST_DATABASE_URL)('fuzzing every route on postgres', () => {
  let t: TestApp;
  const tokens = new Map<string, string>();
  const users = new Map<Role, { id: string; role: Role }>();
  let affiliateToken = '';

  beforeAll(async () => {
    t = await createTestApp('postgres', {
      API_RATE_PER_MINUTE: '100000000',
      LOGIN_RATE_PER_MINUTE: '100000000',
      QUOTE_HISTORY_RATE_PER_MINUTE: '100000000',
      EXTERNAL_RATE_PER_MINUTE: '100000000',
    });
    doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as Doc;
    for (const role of ROLES) {
      if (role === 'client') continue;
      const u = await t.createUser(role);
      users.set(role, { id: u.id, role });
      tokens.set(role, await t.login(u.email));
    }
    const client = await registerClient(t, 'Fuzz Client');
    tokens.set('client', client.token);
    const created = await t.inject({
      method: 'POST',
      url: '/api/affiliate-tokens?name=Fuzz%20Partner',
      token: tokens.get('superadmin')!,
    });
    expect(created.statusCode, created.body).toBe(201);
    affiliateToken = (created.json() as { token: string }).token;
  }, 120_000);
  afterAll(() => t?.close());

  it('lists the same routes in API_ROUTES and in the OpenAPI document', () => {
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths))
      for (const m of Object.keys(item)) documented.add(`${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`);
    const registry = Object.keys(API_ROUTES);
    expect(
      registry.filter((k) => !documented.has(k) && !NOT_HTTP_OPERATIONS.has(k)),
      'in API_ROUTES, not in the document',
    ).toEqual([]);
    expect(
      [...documented].filter((k) => !(k in API_ROUTES)),
      'in the document, not in API_ROUTES',
    ).toEqual([]);
    for (const k of NOT_HTTP_OPERATIONS) expect(registry).toContain(k);
  });

  it('answers garbage on every route, as every identity, with a clean 4xx or a success — never a 5xx', async () => {
    const keys = (Object.keys(API_ROUTES) as ApiRouteKey[])
      // Routes that change who may call (the staff whitelist) or the partner's token go last.
      .sort(
        (a, b) => Number(/ip-whitelist|affiliate-tokens/.test(a)) - Number(/ip-whitelist|affiliate-tokens/.test(b)),
      );
    let requests = 0;
    const problems: string[] = [];
    const fivexx: string[] = [];

    const identityFor = async (who: string): Promise<Record<string, string>> => {
      if (who === 'anonymous') return {};
      if (who === 'affiliate') return { authorization: `Bearer ${affiliateToken}` };
      if (who === 'client') return { authorization: `Bearer ${tokens.get('client')}` };
      return { authorization: `Bearer ${tokens.get(who)}` };
    };
    /** A session ended by the route it called (logout) is renewed, so the next call is made signed in again. */
    const renew = async (who: string) => {
      if (who === 'anonymous' || who === 'affiliate') return;
      if (who === 'client') {
        tokens.set('client', (await registerClient(t, 'Fuzz Client')).token);
        return;
      }
      tokens.set(
        who,
        await createSession(
          t.db,
          users.get(who as Role)!,
          { staffIdleSeconds: 900, clientIdleSeconds: 900 },
          { ip: '127.0.0.1', userAgent: 'fuzz' },
        ),
      );
    };

    for (const key of keys) {
      const access = (API_ROUTES as Record<string, RouteAccess>)[key]!;
      const [method, template] = key.split(' ') as [string, string];
      const op = doc.paths[template.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()] ?? {
        parameters: [{ in: 'query', name: 'token', schema: { type: 'string' } }],
      };
      const identities = ['anonymous', ...ROLES, 'affiliate'];
      const admits = (who: string) =>
        who === 'anonymous'
          ? access === 'public'
          : who === 'affiliate'
            ? access === 'affiliate_token'
            : roleMayCallWith(who as Role, key);
      // Every case for: anonymous, a client and the partner when admitted, the most and the least powerful staff
      // role admitted (scopes differ); the other admitted roles and every refused identity get the short set.
      const admittedStaff = ROLES.filter((r) => r !== 'client' && admits(r));
      const fullFor = new Set(['anonymous', 'client', 'affiliate', admittedStaff[0], admittedStaff.at(-1)]);
      for (const who of identities) {
        const admitted = admits(who);
        for (const c of casesFor(key, op, admitted && fullFor.has(who))) {
          const headers: Record<string, string> = { ...(await identityFor(who)), ...(c.headers ?? {}) };
          if (c.contentType) headers['content-type'] = c.contentType;
          const url = c.path + (c.query ? `?${c.query}` : '');
          const res = await t.app.inject({
            method: method as 'GET',
            url,
            headers,
            ...(c.raw !== undefined
              ? { payload: c.raw }
              : c.payload !== undefined && method !== 'GET'
                ? { payload: JSON.stringify(c.payload), headers: { ...headers, 'content-type': 'application/json' } }
                : {}),
          });
          requests++;
          const where = `${key} as ${who}, ${c.what} → ${res.statusCode}`;
          const body = res.body;
          if (res.statusCode >= 500) {
            fivexx.push(`${where}: ${body.slice(0, 300)}`);
            continue;
          }
          if (STACK.test(body)) problems.push(`${where}: a stack trace: ${body.slice(0, 300)}`);
          if (SQL.test(body)) problems.push(`${where}: SQL text: ${body.slice(0, 300)}`);
          if (res.statusCode >= 400) {
            let detail: unknown;
            try {
              detail = (JSON.parse(body) as { detail?: unknown }).detail;
            } catch {
              detail = undefined;
            }
            if (typeof detail !== 'string' || detail.trim() === '')
              problems.push(`${where}: a refusal without a detail: ${body.slice(0, 200)}`);
          }
          if (/logout/.test(key) && res.statusCode < 300) await renew(who);
        }
      }
    }
    console.log(`fuzz: ${requests} requests fuzzed over ${keys.length} routes; 5xx seen: ${fivexx.length}`);
    expect(fivexx, fivexx.slice(0, 20).join('\n')).toEqual([]);
    expect(problems, problems.slice(0, 20).join('\n')).toEqual([]);
    expect(requests).toBeGreaterThan(keys.length * 10);
  }, 600_000);
});
