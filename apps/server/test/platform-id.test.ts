import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { registerClient } from './trading-helpers.js';

/**
 * Issue 27 item 11 (client-platform.md §2.4, §3): every client has a short account number, `platform_id`, shown as its
 * ID on the trading screen, its statement and the CRM instead of a truncated UUID.
 */
describe.each(dbKinds())('the client account number (platform_id) on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.userWithToken('superadmin');
  });
  afterAll(() => t?.close());

  it('a registered client gets an eight-digit number of its own; staff have none', async () => {
    const a = await registerClient(t, 'Первый');
    const b = await registerClient(t, 'Второй');
    const meA = (await t.inject({ method: 'GET', url: '/api/auth/me', token: a.token })).json();
    const meB = (await t.inject({ method: 'GET', url: '/api/auth/me', token: b.token })).json();
    expect(meA.platform_id).toMatch(/^\d{8}$/);
    expect(meB.platform_id).toMatch(/^\d{8}$/);
    expect(meA.platform_id).not.toBe(meB.platform_id);
    // Numbered in the order the clients came.
    expect(Number(meB.platform_id)).toBeGreaterThan(Number(meA.platform_id));
    const staff = (await t.inject({ method: 'GET', url: '/api/auth/me', token: admin.token })).json();
    expect(staff.platform_id).toBeNull();
  });

  it('a login made on the client card gets one too, and the CRM shows it on the card and the accounts list', async () => {
    const lead = await t.db
      .insertInto('clients')
      .values({
        name: 'Лид С Карточки',
        email: 'card.lead@test.local',
        phone: '',
        country: 'Kazakhstan',
        campaign: '',
        source: 'import',
        notes: '',
        status: 'new',
        assigned_manager: null,
        affiliate_id: null,
        user_id: null,
        registration_date: null,
        last_comment_date: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const made = await t.inject({
      method: 'POST',
      url: `/api/clients/${lead.id}/register-user`,
      token: admin.token,
      payload: { name: 'Лид С Карточки', email: 'card.lead@test.local', password: 'secret-123' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const user = await t.db
      .selectFrom('users')
      .select('platform_id')
      .where('email', '=', 'card.lead@test.local')
      .executeTakeFirstOrThrow();
    expect(user.platform_id).toMatch(/^\d{8}$/);

    const summary = (
      await t.inject({ method: 'GET', url: `/api/clients/${lead.id}/summary`, token: admin.token })
    ).json();
    expect(summary.platform_id).toBe(user.platform_id);
    const list = (
      await t.inject({
        method: 'GET',
        url: '/api/trading/admin/accounts?search=card.lead',
        token: admin.token,
      })
    ).json();
    expect(list.accounts.map((a: { platform_id: string | null }) => a.platform_id)).toEqual([user.platform_id]);
  });
});
