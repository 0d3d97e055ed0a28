import { API_ROUTES, type RouteAccess } from '@brokerage/shared';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsVault } from '../src/platform/crypto/vault.js';
import { demoAccounts, seedDemoData } from '../src/seed/demo.js';
import { createTestApp, type TestApp } from './helpers.js';

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
}

/** One answer of the live API, with the route pattern it came from. */
interface Answer {
  method: string;
  route: string;
  status: number;
  type: string;
  body: string;
}

const CARD_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Partners generate clients from /api/docs/json and validate what they receive (issue 28 §3): every answer the API
 * gives must match the document under a strict validator. This records real answers (the demo data set, every
 * parameterless GET as staff and as a client, the routes of a few records, sign-in, registration and the downloads)
 * and checks each against its operation's schema with Ajv in strict mode, so a schema drift fails here.
 */
describe('the OpenAPI document against live answers', () => {
  let t: TestApp;
  let doc: Doc;
  const answers: Answer[] = [];
  const ajv = new Ajv({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI 3.0's own keywords beside JSON Schema's: annotations that a validator ignores.
  ajv.addVocabulary(['example', 'x-response-description']);
  const compiled = new Map<Json, ValidateFunction>();

  async function call(
    token: string | undefined,
    method: string,
    route: string,
    params: Record<string, string | number> = {},
    payload?: unknown,
  ): Promise<Answer> {
    const url = route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const res = await t.inject({
      method: method as 'GET',
      url,
      ...(token ? { token } : {}),
      ...(payload !== undefined ? { payload: payload as Json } : {}),
    });
    const answer = {
      method,
      route,
      status: res.statusCode,
      type: String(res.headers['content-type'] ?? '').split(';')[0]!,
      body: res.body,
    };
    answers.push(answer);
    return answer;
  }

  beforeAll(async () => {
    t = await createTestApp('pglite', {
      LOGIN_RATE_PER_MINUTE: '100000',
      API_RATE_PER_MINUTE: '100000',
      CARD_ENCRYPTION_KEY: CARD_KEY,
    });
    await seedDemoData(t.db, new SecretsVault({ key: CARD_KEY, dataDir: '/nonexistent' }), {
      durations: [300, 900, 1800, 3600, 14400],
      priceLogSigner: t.app.engine.priceLogSigner,
    });
    doc = (await t.inject({ method: 'GET', url: '/api/docs/json' })).json() as Doc;

    const password = demoAccounts()[0]!.password;
    const tokenOf = (role: string) => t.login(demoAccounts().find((a) => a.role === role)!.email, password);
    const staff = await tokenOf('superadmin');
    const client = await tokenOf('client');
    const clientToo = await tokenOf('client');

    // Every GET without a path parameter, as the superadmin and as a client (each sees what its role may).
    for (const [key, access] of Object.entries(API_ROUTES as Record<string, RouteAccess>)) {
      const [method, route] = key.split(' ') as [string, string];
      if (method !== 'GET' || route.includes(':') || access === 'affiliate_token') continue;
      if (route === '/api/ws' || route.startsWith('/api/docs')) continue;
      await call(staff, method, route);
      await call(client, method, route);
    }

    // The records the demo data holds, through the routes that read one.
    const clientRow = await t.db
      .selectFrom('clients')
      .innerJoin('trading_accounts as a', 'a.client_id', 'clients.id')
      .select(['clients.id as clientId', 'a.id as accountId'])
      .where('clients.email', '=', demoAccounts().find((a) => a.role === 'client')!.email)
      .executeTakeFirstOrThrow();
    const ids = { id: Number(clientRow.clientId), clientId: Number(clientRow.clientId) };
    for (const route of [
      '/api/clients/:id',
      '/api/clients/:id/comments',
      '/api/clients/:id/deposits',
      '/api/client-messages/:clientId',
    ]) {
      if ((API_ROUTES as Record<string, string>)[`GET ${route}`]) await call(staff, 'GET', route, ids);
    }
    await call(staff, 'GET', '/api/trading/admin/accounts/:accountId', { accountId: Number(clientRow.accountId) });
    const trade = await t.db.selectFrom('trades').select('id').orderBy('id').executeTakeFirst();
    if (trade) {
      await call(staff, 'GET', '/api/trading/trades/:id/audit', { id: String(trade.id) });
    }

    // Sign-in, the session, registration, and refusals in the API's error shape.
    await call(undefined, 'POST', '/api/auth/login', {}, { email: demoAccounts()[0]!.email, password });
    await call(undefined, 'POST', '/api/auth/login', {}, { email: 'nobody@example.com', password: 'wrong-password' });
    await call(
      undefined,
      'POST',
      '/api/auth/register-client',
      {},
      { name: 'Ajv', email: 'ajv@example.com', password: 'secret-123' },
    );
    await call(clientToo, 'GET', '/api/auth/me');
    await call(undefined, 'GET', '/api/auth/me');
    await call(client, 'GET', '/api/clients');
    // The downloads: a file in its own media type, never JSON.
    await call(client, 'GET', '/api/trading/statement/export');
    await call(staff, 'GET', '/api/clients/export/excel');
    await call(staff, 'GET', '/api/deposits/export/excel');
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The schema of an answer in the document: its operation, its status, its media type. */
  function schemaOf(a: Answer): Json | 'binary' | undefined {
    const path = a.route.replace(/:(\w+)/g, '{$1}');
    const response = doc.paths[path]?.[a.method.toLowerCase()]?.responses[String(a.status)];
    const content = response?.content?.[a.type];
    if (!content) return undefined;
    return content.schema.format === 'binary' ? 'binary' : content.schema;
  }

  it('records a broad set of answers: successes and refusals of many operations', () => {
    const operations = new Set(answers.map((a) => `${a.method} ${a.route}`));
    expect(operations.size).toBeGreaterThan(40);
    expect(answers.filter((a) => a.status < 300).length).toBeGreaterThan(50);
    expect(answers.some((a) => a.status === 401)).toBe(true);
    expect(answers.some((a) => a.status === 403)).toBe(true);
  });

  it('documents every answer: its status and its media type are in the operation', () => {
    const undocumented = answers
      .filter((a) => schemaOf(a) === undefined)
      .map((a) => `${a.method} ${a.route} → ${a.status} ${a.type}`);
    expect(undocumented).toEqual([]);
  });

  it('every JSON answer validates against its schema under strict Ajv', () => {
    const failures: string[] = [];
    for (const a of answers) {
      const schema = schemaOf(a);
      if (!schema || schema === 'binary') continue;
      let validate = compiled.get(schema);
      if (!validate) {
        validate = ajv.compile(schema);
        compiled.set(schema, validate);
      }
      if (!validate(JSON.parse(a.body))) {
        const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath} ${e.message}`);
        failures.push(`${a.method} ${a.route} → ${a.status}: ${errors.join('; ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('documents the downloads as files in their own media types, and the answers come in one of them', () => {
    const downloads = answers.filter((a) => a.route.includes('/export'));
    expect(downloads.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(3);
    for (const a of downloads.filter((d) => d.status === 200)) {
      expect(a.type, `${a.route}`).not.toBe('application/json');
      expect(schemaOf(a), `${a.route}`).toBe('binary');
    }
  });
});
