import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

/** The built web app as the server serves it: new builds are picked up without a restart; missing assets are 404. */
describe('serving the web build', () => {
  let t: TestApp;
  let dist: string;

  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><script type="module" src="/assets/app-1.js"></script>',
    );
    fs.writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    t = await createTestApp('pglite', { WEB_DIST: dist });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves a hashed file written after start (a rebuild) and 404s a missing one instead of the page', async () => {
    expect((await t.inject({ method: 'GET', url: '/assets/app-1.js' })).statusCode).toBe(200);
    fs.writeFileSync(path.join(dist, 'assets', 'app-2.js'), 'console.log(2)');
    const fresh = await t.inject({ method: 'GET', url: '/assets/app-2.js' });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.body).toBe('console.log(2)');
    const missing = await t.inject({ method: 'GET', url: '/assets/gone-3.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).not.toMatch(/text\/html/);
  });

  it('answers a deep link with the page, so the app can route it', async () => {
    const res = await t.inject({ method: 'GET', url: '/crm/staff?x=1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('/assets/app-1.js');
  });

  it('tells the signed-in user the business time zone', async () => {
    const { token } = await t.userWithToken('admin');
    const me = await t.inject({ method: 'GET', url: '/api/auth/me', token });
    expect(me.json()).toMatchObject({ role: 'admin', business_timezone: 'Europe/Kyiv' });
  });
});
