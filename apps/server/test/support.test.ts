import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus, type BusEvent } from '../src/platform/bus/index.js';
import { NotificationWorker } from '../src/modules/notifications/worker.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { startTestSmtp, type TestSmtp } from './smtp.js';
import { registerClient, type TestClient } from './trading-helpers.js';

/**
 * Issue 22 §6: the two-way support conversation. A client writes to the broker ('Поддержка'); the client's manager
 * (or the department's team leads) is told on the bell and live; 'Входящие' lists the conversations with unread client
 * messages within the viewer's scope (D5); the client's own manager may reply, and the reply is e-mailed
 * (broker_message) over real SMTP.
 */
describe.each(dbKinds())('support conversation on %s', (kind) => {
  let t: TestApp;
  let smtp: TestSmtp;
  type Staff = { id: string; email: string; token: string };
  let superadmin: Staff;
  let retentionManager: Staff;
  let otherManager: Staff;
  let leadSales: Staff;
  let leadRetention: Staff;
  /** Assigned to the retention manager. */
  let alice: TestClient;
  /** No manager, no deposit yet: the sales team leads' to answer. */
  let carol: TestClient;

  const write = (token: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: '/api/my-messages', token, headers, payload: payload as Record<string, unknown> });
  const inbox = async (token: string) => {
    const res = await t.inject({ method: 'GET', url: '/api/inbox', token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      client_id: number;
      client_name: string;
      manager_id: string | null;
      manager_name: string | null;
      unread_count: number;
      last_message_at: string;
      last_text: string;
    }[];
  };
  const bell = async (token: string) =>
    (await t.inject({ method: 'GET', url: '/api/notifications', token })).json() as {
      items: { type: string; client_id: number | null; client_name: string | null; read: boolean }[];
      unread: number;
    };
  const recordingWorker = () => {
    const bus = new InProcessBus();
    const events: BusEvent[] = [];
    bus.subscribe((e) => events.push(e));
    return { worker: new NotificationWorker({ db: t.db, bus }), events };
  };

  beforeAll(async () => {
    smtp = await startTestSmtp();
    t = await createTestApp(kind, {
      LOGIN_RATE_PER_MINUTE: '100000',
      SMTP_URL: smtp.url,
      PUBLIC_URL: 'https://broker.test',
    });
    superadmin = await t.userWithToken('superadmin');
    retentionManager = await t.userWithToken('retention_manager');
    otherManager = await t.userWithToken('retention_manager');
    leadSales = await t.userWithToken('team_lead_sales');
    leadRetention = await t.userWithToken('team_lead_retention');
    alice = await registerClient(t, 'Alice Support');
    carol = await registerClient(t, 'Carol Unassigned');
    await t.db
      .updateTable('clients')
      .set({ assigned_manager: retentionManager.id })
      .where('id', '=', alice.clientId)
      .execute();
    await t.db.updateTable('clients').set({ assigned_manager: null }).where('id', '=', carol.clientId).execute();
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('takes a client message (trimmed) and shows it in the conversation, unread by staff', async () => {
    const { worker, events } = recordingWorker();
    await worker.tick(new Date(0));
    const before = events.length;

    const res = await write(alice.token, { text: '  Здравствуйте, не могу пополнить счёт  ' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      direction: 'client',
      content: 'Здравствуйте, не могу пополнить счёт',
      created_by_name: 'Alice Support',
      read: false,
      read_at: null,
    });
    const mine = (await t.inject({ method: 'GET', url: '/api/my-messages', token: alice.token })).json() as {
      id: number;
      direction: string;
      read: boolean;
    }[];
    expect(mine.map((m) => [m.id, m.direction, m.read])).toEqual([[res.json().id, 'client', false]]);
    // The client cannot mark its own message 'read by staff'.
    const own = await t.inject({ method: 'PUT', url: `/api/my-messages/${res.json().id}/read`, token: alice.token });
    expect(own.statusCode).toBe(404);

    // The manager's bell holds it, and the notification outbox pushes it to the manager live.
    const b = await bell(retentionManager.token);
    expect(b.items.filter((n) => n.type === 'client_message')).toEqual([
      expect.objectContaining({ client_id: alice.clientId, client_name: 'Alice Support', read: false }),
    ]);
    expect((await worker.tick(new Date(0))).pushed).toBeGreaterThanOrEqual(1);
    const pushed = events.slice(before).filter((e) => e.type === 'notification.new');
    expect(pushed).toContainEqual(
      expect.objectContaining({
        user_id: retentionManager.id,
        payload: expect.objectContaining({
          notification: expect.objectContaining({ type: 'client_message', client_id: alice.clientId }),
        }),
      }),
    );
    // Nobody else was told: not the other manager, not the team leads (Alice has a manager).
    for (const who of [otherManager, leadSales, leadRetention]) {
      expect((await bell(who.token)).items.some((n) => n.type === 'client_message')).toBe(false);
    }

    // A second message while the first is unread: one notification, the conversation counts two.
    expect((await write(alice.token, { text: 'Жду ответа' })).statusCode).toBe(201);
    expect((await bell(retentionManager.token)).items.filter((n) => n.type === 'client_message')).toHaveLength(1);
  });

  it('refuses bad text with 400 and a detail; 4000 characters pass', async () => {
    const cases: [unknown, string][] = [
      [{ text: '   ' }, 'text: Обязательное поле'],
      [{ text: 'x'.repeat(4001) }, 'text: Не более 4000 символов'],
      [{}, 'text'],
      [{ text: 42 }, 'text'],
      [{ text: 'Привет', client_id: carol.clientId }, 'client_id'],
    ];
    for (const [payload, detail] of cases) {
      const res = await write(carol.token, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400);
      expect(res.json().detail).toContain(detail);
    }
    const max = await write(carol.token, { text: 'я'.repeat(4000) });
    expect(max.statusCode, max.body).toBe(201);
    // Staff may not write through the client's door.
    expect((await write(superadmin.token, { text: 'Привет' })).statusCode).toBe(403);
  });

  it("tells the department's team leads when the client has no manager", async () => {
    // Carol (no manager, no deposit) wrote above: the sales team lead is told, the retention one is not.
    expect((await bell(leadSales.token)).items).toContainEqual(
      expect.objectContaining({ type: 'client_message', client_id: carol.clientId }),
    );
    expect((await bell(leadRetention.token)).items.some((n) => n.type === 'client_message')).toBe(false);
  });

  it('lists unread conversations in the inbox within the viewer’s scope, newest first, with the manager', async () => {
    const mgr = await inbox(retentionManager.token);
    expect(mgr).toEqual([
      {
        client_id: alice.clientId,
        client_name: 'Alice Support',
        manager_id: retentionManager.id,
        manager_name: expect.stringMatching(/retention_manager/),
        unread_count: 2,
        last_message_at: expect.any(String),
        last_text: 'Жду ответа',
      },
    ]);
    const all = await inbox(superadmin.token);
    expect(all.map((c) => c.client_id)).toEqual([carol.clientId, alice.clientId]);
    expect(all[0]).toMatchObject({ manager_id: null, manager_name: null, unread_count: 1 });
    // Another manager sees neither conversation, and Alice's conversation is 404 to them (D5).
    expect(await inbox(otherManager.token)).toEqual([]);
    const theirs = await t.inject({
      method: 'GET',
      url: `/api/client-messages/${alice.clientId}`,
      token: otherManager.token,
    });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().detail).toBe('Клиент не найден');
    const reply = await t.inject({
      method: 'POST',
      url: '/api/client-messages',
      token: otherManager.token,
      payload: { client_id: alice.clientId, content: 'Не мой клиент' },
    });
    expect(reply.statusCode).toBe(404);
    expect(
      (await t.inject({ method: 'PUT', url: `/api/inbox/${alice.clientId}/read`, token: otherManager.token }))
        .statusCode,
    ).toBe(404);
    // The sales team lead sees the unassigned client in scope, but is neither in messages.send's roles nor the
    // client's manager: the conversation is 403.
    expect((await inbox(leadSales.token)).map((c) => c.client_id)).toEqual([carol.clientId]);
    const lead = await t.inject({
      method: 'POST',
      url: '/api/client-messages',
      token: leadSales.token,
      payload: { client_id: carol.clientId, content: 'Отвечу я' },
    });
    expect(lead.statusCode).toBe(403);
    expect(lead.json().detail).toBe('Недостаточно прав для этого действия');
    expect(
      (await t.inject({ method: 'GET', url: `/api/client-messages/${carol.clientId}`, token: leadSales.token }))
        .statusCode,
    ).toBe(403);
    // Clients have no inbox.
    expect((await t.inject({ method: 'GET', url: '/api/inbox', token: alice.token })).statusCode).toBe(403);
  });

  it('lets the client’s own manager reply; the reply is audited, e-mailed over SMTP, and seen by the client', async () => {
    const history = await t.inject({
      method: 'GET',
      url: `/api/client-messages/${alice.clientId}`,
      token: retentionManager.token,
    });
    expect(history.statusCode, history.body).toBe(200);
    expect((history.json() as { direction: string }[]).map((m) => m.direction)).toEqual(['client', 'client']);

    const res = await t.inject({
      method: 'POST',
      url: '/api/client-messages',
      token: retentionManager.token,
      payload: { client_id: alice.clientId, content: 'Добрый день! Пришлите, пожалуйста, номер заявки.' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      direction: 'staff',
      created_by: retentionManager.id,
      client_id: alice.clientId,
    });
    const audit = (await t.auditRows('client_message.send')).filter((a) => a.entity_id === String(res.json().id));
    expect(audit).toEqual([expect.objectContaining({ actor_id: retentionManager.id })]);

    // The client sees both directions; its own messages are now read (the manager answered them).
    const mine = (await t.inject({ method: 'GET', url: '/api/my-messages', token: alice.token })).json() as {
      direction: string;
      content: string;
      read: boolean;
    }[];
    expect(mine.map((m) => [m.direction, m.read])).toEqual([
      ['staff', false],
      ['client', true],
      ['client', true],
    ]);
    expect(mine[0]!.content).toBe('Добрый день! Пришлите, пожалуйста, номер заявки.');
    expect((await inbox(retentionManager.token)).some((c) => c.client_id === alice.clientId)).toBe(false);

    // The e-mail leaves over SMTP and arrives at the client's address with the text and a link to the trading screen.
    const sent = await t.app.mailWorker.tick(new Date(Date.now() + 1000));
    expect(sent.sent).toBeGreaterThanOrEqual(1);
    const mail = await smtp.waitFor(
      (m) => m.envelopeTo.includes(alice.email) && (m.parsed.subject ?? '').startsWith('Новое сообщение от брокера'),
    );
    expect(mail.parsed.text).toContain('Пришлите, пожалуйста, номер заявки.');
    expect(mail.parsed.text).toContain('https://broker.test/trading');
    // Bulk mail: the one-click unsubscribe of RFC 8058.
    expect(mail.raw).toMatch(/^List-Unsubscribe:\s+<https:\/\/broker\.test\/api\/mail\/unsubscribe\?token=/m);
  });

  it('marks a conversation read from the inbox, with the caller’s bell notification about it', async () => {
    expect((await write(alice.token, { text: 'Номер заявки 1234' })).statusCode).toBe(201);
    expect((await inbox(retentionManager.token)).map((c) => c.unread_count)).toEqual([1]);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/inbox/${alice.clientId}/read`,
      token: retentionManager.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, read: 1 });
    expect(await inbox(retentionManager.token)).toEqual([]);
    expect((await bell(retentionManager.token)).items.filter((n) => n.type === 'client_message' && !n.read)).toEqual(
      [],
    );
    const again = await t.inject({ method: 'PUT', url: `/api/inbox/${alice.clientId}/read`, token: superadmin.token });
    expect(again.json()).toEqual({ ok: true, read: 0 });
    expect((await t.inject({ method: 'PUT', url: '/api/inbox/999999/read', token: superadmin.token })).statusCode).toBe(
      404,
    );
  });

  it('takes at most 30 client messages an hour, then 429 with a detail and Retry-After', async () => {
    const dave = await registerClient(t, 'Dave Chatty');
    for (let i = 0; i < 30; i++) {
      const res = await write(dave.token, { text: `Сообщение ${i + 1}` });
      expect(res.statusCode, res.body).toBe(201);
    }
    const over = await write(dave.token, { text: 'Ещё одно' });
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('support_rate_limited');
    expect(over.json().detail).toMatch(/^Не более 30 сообщений в час\. Следующее можно отправить через \d+ мин\.$/);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(3000);
    const en = await write(dave.token, { text: 'One more' }, { 'accept-language': 'en' });
    expect(en.json().detail).toMatch(/^At most 30 messages an hour/);
    // Another client is not limited by Dave's messages.
    expect((await write(carol.token, { text: 'А я могу' })).statusCode).toBe(201);
    // An hour later Dave may write again.
    await t.db
      .updateTable('client_messages')
      .set({ created_at: new Date(Date.now() - 3601_000) })
      .where('client_id', '=', dave.clientId)
      .execute();
    expect((await write(dave.token, { text: 'Прошёл час' })).statusCode).toBe(201);
  });
});
