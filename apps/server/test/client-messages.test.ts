import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { registerClient, type TestClient } from './trading-helpers.js';

/** Messages from staff to a client (back-office.md §2.15, §6, §7; client-platform.md §2.7, §3, §7; D5, D10). */
describe.each(dbKinds())('client messages on %s', (kind) => {
  let t: TestApp;
  let superadmin: { id: string; token: string };
  let leadRetention: { id: string; token: string };
  let retentionManager: { id: string; token: string };
  let salesManager: { id: string; token: string };
  /** Assigned to the retention manager: in the retention team lead's scope. */
  let alice: TestClient;
  /** Assigned to a sales manager: outside the retention team lead's scope. */
  let bob: TestClient;
  let leadId: number;

  const send = (token: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url: '/api/client-messages',
      token,
      headers,
      payload: payload as Record<string, unknown>,
    });
  const history = (token: string, clientId: number | string, query = '') =>
    t.inject({ method: 'GET', url: `/api/client-messages/${clientId}${query}`, token });

  beforeAll(async () => {
    t = await createTestApp(kind, { LOGIN_RATE_PER_MINUTE: '100000' });
    superadmin = await t.userWithToken('superadmin');
    leadRetention = await t.userWithToken('team_lead_retention');
    retentionManager = await t.userWithToken('retention_manager');
    salesManager = await t.userWithToken('sales_manager');
    alice = await registerClient(t, 'Alice Reader');
    bob = await registerClient(t, 'Bob Other');
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: retentionManager.id })
      .where('id', '=', alice.clientId)
      .execute();
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: salesManager.id })
      .where('id', '=', bob.clientId)
      .execute();
    // A lead that never registered on the trading platform.
    const lead = await t.db
      .insertInto('clients')
      .values({
        name: 'Lead Only',
        email: 'lead.only@test.local',
        phone: '+380991112233',
        country: 'UA',
        campaign: '',
        source: 'test',
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
    leadId = Number(lead.id);
  });
  afterAll(() => t.close());

  it('sends a message to a registered client: trimmed, stored for its user, audited', async () => {
    const res = await send(superadmin.token, { client_id: alice.clientId, content: '  Здравствуйте, Алиса!  ' });
    expect(res.statusCode, res.body).toBe(201);
    const msg = res.json();
    expect(msg).toMatchObject({
      client_id: alice.clientId,
      content: 'Здравствуйте, Алиса!',
      message: 'Здравствуйте, Алиса!',
      created_by: superadmin.id,
      read: false,
      is_read: false,
      read_at: null,
    });
    expect(msg.created_by_name).toMatch(/superadmin/);
    const row = await t.db.selectFrom('client_messages').selectAll().where('id', '=', msg.id).executeTakeFirstOrThrow();
    expect(row.user_id).toBe(alice.userId);
    const audit = (await t.auditRows('client_message.send')).filter((a) => a.entity_id === String(msg.id));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: superadmin.id,
      after: { client_id: alice.clientId, user_id: alice.userId, content: 'Здравствуйте, Алиса!' },
    });
  });

  it('refuses a client without a platform user with 409, an unknown one with 404, and bad input with 400', async () => {
    const unregistered = await send(superadmin.token, { client_id: leadId, content: 'Привет' });
    expect(unregistered.statusCode).toBe(409);
    expect(unregistered.json().detail).toBe(
      'У клиента нет пользователя торговой платформы: сначала зарегистрируйте его',
    );
    const en = await send(superadmin.token, { client_id: leadId, content: 'Hi' }, { 'accept-language': 'en' });
    expect(en.json().detail).toBe('The client has no trading platform user: register one first');
    const unknown = await send(superadmin.token, { client_id: 999999, content: 'Привет' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toBe('Клиент не найден');

    const cases: [unknown, string, string?][] = [
      [{ client_id: alice.clientId, content: '   ' }, 'content', 'content: Обязательное поле'],
      [{ client_id: alice.clientId, content: 'x'.repeat(2001) }, 'content', 'content: Не более 2000 символов'],
      [{ client_id: alice.clientId }, 'content'],
      [{ content: 'Привет' }, 'client_id'],
      [{ client_id: String(alice.clientId), content: 'Привет' }, 'client_id'],
      [{ client_id: 1.5, content: 'Привет' }, 'client_id'],
      [{ client_id: alice.clientId, content: 42 }, 'content'],
      [{ client_id: alice.clientId, content: 'Привет', created_by: superadmin.id }, 'created_by'],
    ];
    for (const [payload, field, detail] of cases) {
      const res = await send(superadmin.token, payload);
      expect(res.statusCode, `${JSON.stringify(payload).slice(0, 60)}: ${res.body}`).toBe(400);
      expect(res.json().detail).toContain(field);
      if (detail) expect(res.json().detail).toBe(detail);
    }
    // 2000 characters exactly are fine.
    expect((await send(superadmin.token, { client_id: alice.clientId, content: 'я'.repeat(2000) })).statusCode).toBe(
      201,
    );
    expect(await t.auditCount('client_message.send')).toBe(2);
  });

  it('keeps sending to superadmin, admin and team_lead_retention, each within their client scope (D5)', async () => {
    // The retention team lead sees retention clients and unassigned ones, not a sales manager's.
    expect((await send(leadRetention.token, { client_id: alice.clientId, content: 'От тимлида' })).statusCode).toBe(
      201,
    );
    const outside = await send(leadRetention.token, { client_id: bob.clientId, content: 'Нельзя' });
    expect(outside.statusCode).toBe(404);
    expect(outside.json().detail).toBe('Клиент не найден');
    expect((await history(leadRetention.token, bob.clientId)).statusCode).toBe(404);
    const admin = await t.userWithToken('admin');
    expect((await send(admin.token, { client_id: bob.clientId, content: 'От админа' })).statusCode).toBe(201);
    // Issue 22 §6: the client's own manager holds the conversation too (see support.test.ts for the reply); another
    // manager does not see the client at all (404); a client is no staff (403).
    expect((await history(retentionManager.token, alice.clientId)).statusCode).toBe(200);
    expect((await send(salesManager.token, { client_id: alice.clientId, content: 'x' })).statusCode).toBe(404);
    expect((await history(salesManager.token, alice.clientId)).statusCode).toBe(404);
    expect((await send(alice.token, { client_id: alice.clientId, content: 'x' })).statusCode).toBe(403);
    expect((await history(alice.token, alice.clientId)).statusCode).toBe(403);
    const messages = await t.db
      .selectFrom('client_messages')
      .select('content')
      .where('client_id', '=', bob.clientId)
      .execute();
    expect(messages.map((m) => m.content)).toEqual(['От админа']);
  });

  it('shows staff a client history newest first with sender and read state; unknown client is 404', async () => {
    const res = await history(superadmin.token, alice.clientId);
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json() as { content: string; created_by_name: string; read: boolean; client_id: number }[];
    expect(items.map((m) => m.content)).toEqual(['От тимлида', 'я'.repeat(2000), 'Здравствуйте, Алиса!']);
    expect(items[0]!.created_by_name).toMatch(/team_lead_retention/);
    expect(items.every((m) => m.client_id === alice.clientId && m.read === false)).toBe(true);
    expect((await history(superadmin.token, alice.clientId, '?limit=1')).json()).toHaveLength(1);
    expect((await history(superadmin.token, 999999)).statusCode).toBe(404);
    expect((await history(superadmin.token, leadId)).json()).toEqual([]);
    expect((await history(superadmin.token, 'abc')).statusCode).toBe(400);
    expect((await history(superadmin.token, alice.clientId, '?limit=0')).statusCode).toBe(400);
  });

  it('lists the client its own messages newest first in both shapes of §3, and no one else’s', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/my-messages', token: alice.token });
    expect(res.statusCode, res.body).toBe(200);
    const mine = res.json() as Record<string, unknown>[];
    expect(mine.map((m) => m.content)).toEqual(['От тимлида', 'я'.repeat(2000), 'Здравствуйте, Алиса!']);
    expect(Object.keys(mine[0]!).sort()).toEqual(
      ['content', 'created_at', 'created_by_name', 'direction', 'id', 'is_read', 'message', 'read', 'read_at'].sort(),
    );
    expect(mine[0]).toMatchObject({ message: 'От тимлида', direction: 'staff', read: false, is_read: false });
    const bobs = (await t.inject({ method: 'GET', url: '/api/my-messages', token: bob.token })).json() as {
      content: string;
    }[];
    expect(bobs.map((m) => m.content)).toEqual(['От админа']);
    expect((await t.inject({ method: 'GET', url: '/api/my-messages', token: superadmin.token })).statusCode).toBe(403);
  });

  it('marks a message read through either call, only the caller’s own, idempotently', async () => {
    const mine = (await t.inject({ method: 'GET', url: '/api/my-messages', token: alice.token })).json() as {
      id: number;
    }[];
    const [first, second] = mine;
    const read = await t.inject({ method: 'PUT', url: `/api/my-messages/${first!.id}/read`, token: alice.token });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ id: first!.id, read: true, is_read: true });
    const readAt = read.json().read_at as string;
    expect(readAt).not.toBeNull();
    // Again, with an empty JSON body as the bell sends it: still read, the first time kept.
    const again = await t.inject({
      method: 'PUT',
      url: `/api/my-messages/${first!.id}/read`,
      token: alice.token,
      payload: {},
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().read_at).toBe(readAt);
    const panel = await t.inject({ method: 'PUT', url: `/api/client-messages/${second!.id}/read`, token: alice.token });
    expect(panel.statusCode).toBe(200);
    expect(panel.json().is_read).toBe(true);

    // Another client's message, a missing one, or a staff caller: refused, nothing marked.
    const bobs = (await t.inject({ method: 'GET', url: '/api/my-messages', token: bob.token })).json() as {
      id: number;
    }[];
    for (const url of [
      `/api/my-messages/${bobs[0]!.id}/read`,
      `/api/client-messages/${bobs[0]!.id}/read`,
      '/api/my-messages/999999/read',
    ]) {
      const res = await t.inject({ method: 'PUT', url, token: alice.token });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().detail).toBe('Сообщение не найдено');
    }
    expect(
      (await t.inject({ method: 'PUT', url: `/api/client-messages/${first!.id}/read`, token: superadmin.token }))
        .statusCode,
    ).toBe(403);
    expect((await t.inject({ method: 'PUT', url: '/api/my-messages/abc/read', token: alice.token })).statusCode).toBe(
      400,
    );
    const bobsAfter = (await t.inject({ method: 'GET', url: '/api/my-messages', token: bob.token })).json() as {
      read: boolean;
    }[];
    expect(bobsAfter[0]!.read).toBe(false);

    // Staff see the read state in the history.
    const h = (await history(superadmin.token, alice.clientId)).json() as { id: number; read: boolean }[];
    expect(
      h
        .filter((m) => m.read)
        .map((m) => m.id)
        .sort(),
    ).toEqual([first!.id, second!.id].sort());
  });
});
