import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** Deposit methods (client-platform.md §2.5, §3, §8; back-office.md §2.15, §6, §7; D9). */
describe.each(dbKinds())('deposit methods on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };

  const put = (id: number | string, payload: unknown, token = superadmin.token, headers: Record<string, string> = {}) =>
    t.inject({
      method: 'PUT',
      url: `/api/deposit-methods/${id}`,
      token,
      headers,
      payload: payload as Record<string, unknown>,
    });
  const publicList = async () =>
    (await t.inject({ method: 'GET', url: '/api/deposit-methods' })).json() as { id: number; title: string }[];
  const staffList = async (token = superadmin.token) =>
    (await t.inject({ method: 'GET', url: '/api/deposit-methods/all', token })).json() as Record<string, unknown>[];

  beforeAll(async () => {
    t = await createTestApp(kind);
    superadmin = await t.userWithToken('superadmin');
  });
  afterAll(() => t.close());

  it('offers the three built-in methods to anyone, without authorization, each sending the client to support', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/deposit-methods' });
    expect(res.statusCode).toBe(200);
    const methods = res.json() as {
      id: number;
      type: string;
      title: string;
      description: string;
      details: string;
      enabled: boolean;
    }[];
    expect(methods.map((m) => [m.type, m.title])).toEqual([
      ['visa_mastercard', 'VISA/MasterCard'],
      ['bank_card', 'Карта'],
      ['crypto', 'Криптовалюта'],
    ]);
    expect(methods.map((m) => m.description)).toEqual([
      'Банковские карты Visa, MasterCard',
      'Дебетовые и кредитные карты',
      'Bitcoin, Ethereum, USDT',
    ]);
    for (const m of methods) {
      expect(m.enabled).toBe(true);
      expect(m.details).toMatch(/обратитесь в службу поддержки/);
      expect(Object.keys(m).sort()).toEqual(['description', 'details', 'enabled', 'id', 'title', 'type']);
    }
    // A signed-in client gets the same list.
    const client = await t.userWithToken('client');
    expect((await t.inject({ method: 'GET', url: '/api/deposit-methods', token: client.token })).json()).toEqual(
      methods,
    );
  });

  it('lets superadmin toggle a method: a disabled one leaves the public list, stays on the staff list, audited', async () => {
    const [visa] = await publicList();
    const res = await put(visa!.id, { enabled: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: visa!.id,
      enabled: false,
      title: 'VISA/MasterCard',
      updated_by: superadmin.id,
    });
    expect(res.json().updated_by_name).toMatch(/superadmin/);
    expect((await publicList()).map((m) => m.id)).not.toContain(visa!.id);
    const all = await staffList();
    expect(all).toHaveLength(3);
    expect(all.find((m) => m.id === visa!.id)).toMatchObject({ enabled: false, updated_by: superadmin.id });

    const audit = await t.auditRows('deposit_method.update');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: superadmin.id,
      entity_id: String(visa!.id),
      before: { type: 'visa_mastercard', enabled: true },
      after: { type: 'visa_mastercard', enabled: false },
    });

    // The same toggle again changes nothing and writes nothing.
    expect((await put(visa!.id, { enabled: false })).statusCode).toBe(200);
    expect(await t.auditCount('deposit_method.update')).toBe(1);
    expect((await put(visa!.id, { enabled: true })).json().enabled).toBe(true);
    expect((await publicList()).map((m) => m.id)).toContain(visa!.id);
    expect(await t.auditCount('deposit_method.update')).toBe(2);
  });

  it('lets superadmin edit title, description and details; the audit row holds before and after of what changed', async () => {
    const crypto = (await staffList()).find((m) => m.type === 'crypto')!;
    const details =
      'USDT (TRC20): TXYZ1234567890abcdef\nBTC: bc1qexampleaddress\nПосле оплаты пришлите хеш транзакции в поддержку.';
    const res = await put(crypto.id as number, {
      title: '  Крипто  ',
      description: 'USDT, BTC',
      details,
      enabled: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Крипто', description: 'USDT, BTC', details, enabled: true });
    expect((await publicList()).find((m) => m.id === crypto.id)).toMatchObject({ title: 'Крипто', details });
    const audit = (await t.auditRows('deposit_method.update')).filter((a) => a.entity_id === String(crypto.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.before).toEqual({
      type: 'crypto',
      title: 'Криптовалюта',
      description: 'Bitcoin, Ethereum, USDT',
      details: crypto.details,
    });
    expect(audit[0]!.after).toEqual({ type: 'crypto', title: 'Крипто', description: 'USDT, BTC', details });
    // Details may be emptied ('Реквизиты не указаны' on screen); the title stays required.
    const emptied = await put(crypto.id as number, { title: 'Крипто', details: '' });
    expect(emptied.statusCode).toBe(200);
    expect(emptied.json().details).toBe('');
  });

  it('refuses bad input with 400 naming the field', async () => {
    const id = (await staffList())[1]!.id as number;
    const cases: [unknown, string, string?][] = [
      [{}, 'enabled'],
      [{ title: '' }, 'title', 'title: Обязательное поле'],
      [{ title: '   ', enabled: true }, 'title'],
      [{ title: 'x'.repeat(121) }, 'title', 'title: Не более 120 символов'],
      [{ title: 'Ok', details: 'x'.repeat(2001) }, 'details', 'details: Не более 2000 символов'],
      [{ title: 'Ok', description: 'x'.repeat(501) }, 'description'],
      [{ description: 'no title' }, 'title', 'title: Обязательное поле'],
      [{ details: 'no title', enabled: true }, 'title'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ enabled: 1 }, 'enabled'],
      [{ title: 12 }, 'title'],
      [{ enabled: true, sort: 1 }, 'sort'],
      [{ enabled: true, type: 'crypto' }, 'type'],
    ];
    for (const [payload, field, detail] of cases) {
      const res = await put(id, payload);
      expect(res.statusCode, `${JSON.stringify(payload).slice(0, 60)}: ${res.body}`).toBe(400);
      expect(res.json().detail).toContain(field);
      if (detail) expect(res.json().detail).toBe(detail);
    }
    const en = await put(id, { title: 'x'.repeat(121) }, superadmin.token, { 'accept-language': 'en' });
    expect(en.json().detail).toBe('title: At most 120 characters');
    for (const bad of ['abc', '0', '-1', '1.5']) expect((await put(bad, { enabled: true })).statusCode, bad).toBe(400);
    for (const missing of [999999, 2147483648, Number.MAX_SAFE_INTEGER]) {
      const res = await put(missing, { enabled: true });
      expect(res.statusCode, String(missing)).toBe(404);
      expect(res.json().detail).toBe('Способ пополнения не найден');
    }
  });

  it('keeps editing to superadmin (§6) and the staff list to trading.manage', async () => {
    const id = (await staffList())[0]!.id as number;
    for (const role of ['admin', 'team_lead_retention', 'retention_manager', 'sales_manager', 'client'] as const) {
      const u = await t.userWithToken(role);
      const res = await put(id, { enabled: false }, u.token);
      expect(res.statusCode, role).toBe(403);
    }
    expect((await staffList()).find((m) => m.id === id)!.enabled).toBe(true);
    for (const role of ['team_lead_retention', 'retention_manager', 'team_lead_sales', 'sales_manager'] as const) {
      const u = await t.userWithToken(role);
      expect(
        (await t.inject({ method: 'GET', url: '/api/deposit-methods/all', token: u.token })).statusCode,
        role,
      ).toBe(200);
    }
    for (const role of ['admin', 'manager', 'client'] as const) {
      const u = await t.userWithToken(role);
      expect(
        (await t.inject({ method: 'GET', url: '/api/deposit-methods/all', token: u.token })).statusCode,
        role,
      ).toBe(403);
    }
    expect((await t.inject({ method: 'GET', url: '/api/deposit-methods/all' })).statusCode).toBe(401);
    expect(
      (await t.inject({ method: 'PUT', url: `/api/deposit-methods/${id}`, payload: { enabled: false } })).statusCode,
    ).toBe(401);
  });
});
