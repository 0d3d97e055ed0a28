import { API_ROUTES } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { registerClient } from './trading-helpers.js';

/**
 * decisions.md D1: nobody chooses a trade's outcome. No route, request field, setting or column exists through which
 * anyone could: no force-result mode, no profit switch, no win probability, no close-as-win button.
 */
const CHOOSES_OUTCOME = /force|result|outcome|profit_enabled|probab|(^|[^a-z])win(s|ner|ning)?([^a-z]|$)|close_as/i;

function propertyNames(schema: unknown, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Record<string, unknown>;
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, child] of Object.entries(s.properties as Record<string, unknown>)) {
      out.push(name);
      propertyNames(child, out);
    }
  }
  for (const key of ['items', 'additionalProperties']) propertyNames(s[key], out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const child of (s[key] as unknown[] | undefined) ?? []) propertyNames(child, out);
  return out;
}

describe('the pattern itself', () => {
  it('catches the names the original brief had and lets ordinary ones through', () => {
    for (const bad of [
      'force_result_mode',
      'profit_enabled',
      'win_probability',
      'close-as-win',
      'result',
      'outcome',
      'win',
      'winner',
    ])
      expect(bad).toMatch(CHOOSES_OUTCOME);
    for (const fine of [
      'window',
      'payout_percentage',
      'profit_loss',
      'status',
      'close_price',
      'trading_enabled',
      'twin',
    ])
      expect(fine).not.toMatch(CHOOSES_OUTCOME);
  });
});

describe.each(dbKinds())('no way to choose an outcome on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('has no such route in the route registry', () => {
    const offending = Object.keys(API_ROUTES).filter((key) =>
      key.split(/[ /]/).some((segment) => CHOOSES_OUTCOME.test(segment)),
    );
    expect(offending).toEqual([]);
  });

  it('has no such path, parameter or request field in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string }[]; requestBody?: { content: Record<string, { schema: unknown }> } }
        >
      >;
    };
    const found: string[] = [];
    // Every route that can take a body is in the document, so no request field escapes the walk (a GET-only
    // route such as a WebSocket upgrade may be left out of it; its path is checked with the registry above).
    const undocumented = Object.keys(API_ROUTES).filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return !doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    });
    expect(undocumented.filter((key) => !key.startsWith('GET '))).toEqual([]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.split('/').some((segment) => CHOOSES_OUTCOME.test(segment))) found.push(path);
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? [])
          if (CHOOSES_OUTCOME.test(p.name)) found.push(`${method} ${path} ?${p.name}`);
        for (const media of Object.values(op.requestBody?.content ?? {})) {
          for (const name of propertyNames(media.schema))
            if (CHOOSES_OUTCOME.test(name)) found.push(`${method} ${path} body.${name}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('has no such setting', () => {
    const keys = Object.keys(loadConfig({ DATA_DIR: '/nonexistent' }));
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((k) => CHOOSES_OUTCOME.test(k))).toEqual([]);
  });

  it('has no such column in the database', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns where table_schema = 'public'`.execute(t.db);
    expect(rows.length).toBeGreaterThan(50);
    expect(
      rows.filter((r) => CHOOSES_OUTCOME.test(r.column_name)).map((r) => `${r.table_name}.${r.column_name}`),
    ).toEqual([]);
  });

  it('refuses such fields where a client or staff member might try them, and has no call that writes a balance', async () => {
    const client = await registerClient(t);
    const staff = await t.userWithToken('superadmin');
    const tries = [
      {
        token: client.token,
        method: 'POST' as const,
        url: '/api/trading/place-trade',
        payload: { direction: 'call', amount: 1, duration: 300, asset: 'EURUSD', force_result: 'win' },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { profit_enabled: false },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { force_result_mode: 'lose' },
      },
      {
        token: staff.token,
        method: 'PUT' as const,
        url: `/api/trading/admin/accounts/${client.accountId}/settings`,
        payload: { win_probability: 0.1 },
      },
    ];
    for (const { token, ...req } of tries) {
      const res = await t.inject({ ...req, token });
      expect(res.statusCode, `${req.url} ${JSON.stringify(req.payload)}`).toBe(400);
    }
    for (const [method, url] of [
      ['PUT', '/api/trading/balance'],
      ['POST', '/api/trading/save-completed-trade'],
      ['POST', `/api/trading/admin/accounts/${client.accountId}/close-trade`],
    ] as const) {
      const res = await t.inject({ method, url, token: method === 'PUT' ? client.token : staff.token, payload: {} });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
