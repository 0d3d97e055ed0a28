import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_ROUTES } from '@brokerage/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

const run = promisify(execFile);
const bin = (name: string) =>
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.bin', name);
/** No telemetry, no update notice: the tools run offline. */
const TOOL_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: { example?: unknown } }> };
}
type Doc = { paths: Record<string, Record<string, Operation>> };

/**
 * Partners feed /api/docs/json to code generators (issue 10): the document must pass `redocly lint` with its
 * recommended rules and turn into types with openapi-typescript. The document does not depend on the database, so
 * this runs once, on the embedded one.
 */
describe('the OpenAPI document', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  let doc: Doc;

  beforeAll(async () => {
    t = await createTestApp('pglite');
    const res = await t.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    doc = res.json() as Doc;
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-'));
    file = path.join(dir, 'openapi.json');
    await writeFile(file, res.body);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes redocly lint (recommended rules) with no error and every operation named and answered', async () => {
    // redocly exits 1 on errors; the JSON report is read either way.
    const out = await run(bin('redocly'), ['lint', file, '--format=json'], { env: TOOL_ENV }).catch(
      (err: { stdout: string }) => err,
    );
    const report = JSON.parse(out.stdout) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string }[];
    };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
    // The one warning left: the project has not chosen a licence to state in `info`.
    expect(report.problems.filter((p) => p.ruleId !== 'info-license')).toEqual([]);
  });

  it('names every operation with a unique operationId and lists a 2xx and a 4xx answer for each', () => {
    const ids: string[] = [];
    for (const [route, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${route}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(op.operationId!);
        const codes = Object.keys(op.responses);
        expect(
          codes.some((c) => c.startsWith('2')),
          `${method} ${route} 2xx`,
        ).toBe(true);
        expect(
          codes.some((c) => c.startsWith('4')),
          `${method} ${route} 4xx`,
        ).toBe(true);
      }
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/api/clients/{id}']!.get!.operationId).toBe('getClientsById');
  });

  it('documents the external API under its tag, with the affiliate token and examples', () => {
    const external = Object.keys(API_ROUTES).filter((key) => key.includes('/api/external/'));
    expect(external).toHaveLength(4);
    for (const key of external) {
      const [method, route] = key.split(' ') as [string, string];
      const op = doc.paths[route]![method.toLowerCase()]!;
      expect(op.tags, key).toEqual(['External API']);
      expect(op.security, key).toEqual([{ affiliateToken: [] }, { affiliateBearer: [] }]);
      expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
      if (method === 'POST') expect(op.requestBody!.content['application/json']!.schema.example, key).toBeTruthy();
    }
    // Public routes take no credentials; the others keep the session schemes.
    expect(doc.paths['/api/health']!.get!.security).toEqual([]);
    expect(doc.paths['/api/clients']!.get!.security).toBeUndefined();
  });

  it('turns into TypeScript types with openapi-typescript', async () => {
    const types = path.join(dir, 'api.d.ts');
    await run(bin('openapi-typescript'), [file, '-o', types], { env: TOOL_ENV });
    const text = await readFile(types, 'utf8');
    for (const id of ['postExternalClients', 'getExternalClients', 'postExternalLeadAds', 'postExternalSearchAds'])
      expect(text).toContain(`${id}: {`);
  });
});
