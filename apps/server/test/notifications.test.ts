import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus, type BusEvent } from '../src/platform/bus/index.js';
import { NotificationWorker } from '../src/modules/notifications/worker.js';
import { monthIn } from '../src/modules/withdrawals/service.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';
import { fund, registerClient } from './trading-helpers.js';

type Staff = { id: string; email: string; token: string };

function validExpiry(): string {
  const { year, month } = monthIn('Europe/Kyiv', new Date());
  const total = year * 12 + (month - 1) + 24;
  return `${String((total % 12) + 1).padStart(2, '0')}/${String(Math.floor(total / 12) % 100).padStart(2, '0')}`;
}

/** Staff notifications (§2.8, D12): who gets which, once; the caller's own list, read, read-all, delete; the push. */
describe.each(dbKinds())('notifications on %s', (kind) => {
  let t: TestApp;
  let superadmin: Staff;
  let leadSales: Staff;
  let leadRetention: Staff;
  let sales: Staff;
  let retention: Staff;
  let otherRetention: Staff;

  const list = async (who: Staff, query = '') => {
    const res = await t.inject({ method: 'GET', url: `/api/notifications${query}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      items: {
        id: number;
        type: string;
        read: boolean;
        client_id: number | null;
        client_name: string | null;
        reminder_title: string | null;
        amount: number | null;
      }[];
      total: number;
      unread: number;
    };
  };
  const newClient = async (who: Staff, name: string) => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/clients',
      token: who.token,
      payload: {
        name,
        email: `${name.toLowerCase()}.${randomBytes(2).toString('hex')}@n.test`,
        phone: '+380501112233',
        country: 'UA',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  };
  /** A worker of its own over the app's database, with a bus that records what it pushes. */
  const recordingWorker = () => {
    const bus = new InProcessBus();
    const events: BusEvent[] = [];
    bus.subscribe((e) => events.push(e));
    return { worker: new NotificationWorker({ db: t.db, bus }), events };
  };

  beforeAll(async () => {
    t = await createTestApp(kind, {
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOGIN_RATE_PER_MINUTE: '100000',
    });
    superadmin = await t.userWithToken('superadmin');
    leadSales = await t.userWithToken('team_lead_sales');
    leadRetention = await t.userWithToken('team_lead_retention');
    sales = await t.userWithToken('sales_manager');
    retention = await t.userWithToken('retention_manager');
    otherRetention = await t.userWithToken('retention_manager');
  });
  afterAll(() => t.close());

  it('bulk assign notifies the new manager once per reassigned client, in the same transaction as its audit rows', async () => {
    const a = await newClient(superadmin, 'Anna');
    const b = await newClient(superadmin, 'Boris');
    const auditBefore = await t.auditCount('client.bulk_assign');
    const res = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: leadSales.token,
      payload: { client_ids: [a, b], assigned_manager: sales.id },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await t.auditCount('client.bulk_assign')).toBe(auditBefore + 2);
    const mine = await list(sales);
    expect(mine.unread).toBe(2);
    expect(mine.items.map((n) => [n.type, n.client_id, n.client_name]).sort()).toEqual(
      [
        ['client_assigned', a, 'Anna'],
        ['client_assigned', b, 'Boris'],
      ].sort(),
    );
    // The same assignment again changes nothing and notifies nobody; the assigner is not notified.
    await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: leadSales.token,
      payload: { client_ids: [a, b], assigned_manager: sales.id },
    });
    expect((await list(sales)).total).toBe(2);
    expect((await list(leadSales)).total).toBe(0);
    // A refused bulk assign (unknown manager) leaves no notification behind.
    const bad = await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: leadSales.token,
      payload: { client_ids: [a], assigned_manager: '00000000-0000-4000-8000-000000000000' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('a manager change on the card notifies the new manager; self-assignment does not', async () => {
    const c = await newClient(superadmin, 'Clara');
    const put = (who: Staff, manager: string) =>
      t.inject({ method: 'PUT', url: `/api/clients/${c}`, token: who.token, payload: { assigned_manager: manager } });
    expect((await put(superadmin, retention.id)).statusCode).toBe(200);
    expect((await list(retention)).items[0]).toMatchObject({ type: 'client_assigned', client_id: c, read: false });
    expect((await put(superadmin, superadmin.id)).statusCode).toBe(200);
    expect((await list(superadmin)).items.filter((n) => n.client_id === c)).toEqual([]);
  });

  it('list is paged with the unread count; read, read-all and delete act on the caller’s own only (others 404)', async () => {
    const ids = [];
    for (const name of ['P1', 'P2', 'P3']) ids.push(await newClient(superadmin, name));
    await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: ids, assigned_manager: otherRetention.id },
    });
    const page1 = await list(otherRetention, '?per_page=2');
    expect(page1).toMatchObject({ total: 3, unread: 3 });
    expect(page1.items).toHaveLength(2);
    const page2 = await list(otherRetention, '?per_page=2&page=2');
    expect(page2.items).toHaveLength(1);
    const [first, second] = page1.items;

    // Another user's notification: 404 for read and delete, and it stays unread.
    expect(
      (await t.inject({ method: 'PUT', url: `/api/notifications/${first!.id}/read`, token: retention.token }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/notifications/${first!.id}`, token: retention.token })).statusCode,
    ).toBe(404);
    expect((await list(otherRetention)).unread).toBe(3);

    const read = await t.inject({
      method: 'PUT',
      url: `/api/notifications/${first!.id}/read`,
      token: otherRetention.token,
    });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().read).toBe(true);
    expect((await list(otherRetention)).unread).toBe(2);
    expect((await list(otherRetention, '?unread=true')).total).toBe(2);

    const del = await t.inject({
      method: 'DELETE',
      url: `/api/notifications/${second!.id}`,
      token: otherRetention.token,
    });
    expect(del.statusCode).toBe(200);
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/notifications/${second!.id}`, token: otherRetention.token }))
        .statusCode,
    ).toBe(404);
    expect(await list(otherRetention)).toMatchObject({ total: 2, unread: 1 });

    const all = await t.inject({ method: 'PUT', url: '/api/notifications/read-all', token: otherRetention.token });
    expect(all.json()).toEqual({ updated: 1 });
    expect((await list(otherRetention)).unread).toBe(0);
    expect((await list(retention)).unread).toBeGreaterThan(0);

    expect(
      (await t.inject({ method: 'PUT', url: '/api/notifications/abc/read', token: otherRetention.token })).statusCode,
    ).toBe(400);
    expect(
      (await t.inject({ method: 'GET', url: '/api/notifications?per_page=1000', token: otherRetention.token }))
        .statusCode,
    ).toBe(400);
  });

  it('roles: every staff role has its own list; a client user is refused, an anonymous caller 401', async () => {
    for (const who of [superadmin, leadSales, leadRetention, sales, retention]) await list(who);
    const admin = await t.userWithToken('admin');
    await list(admin);
    const client = await registerClient(t, 'Nobody');
    expect((await t.inject({ method: 'GET', url: '/api/notifications', token: client.token })).statusCode).toBe(403);
    expect(
      (await t.inject({ method: 'PUT', url: '/api/notifications/read-all', token: client.token })).statusCode,
    ).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/api/notifications' })).statusCode).toBe(401);
  });

  it('reminders: upcoming within 5 minutes and due, to the author and the manager, once across concurrent workers', async () => {
    const c = await newClient(superadmin, 'Remi');
    await t.inject({
      method: 'PUT',
      url: `/api/clients/${c}`,
      token: superadmin.token,
      payload: { assigned_manager: sales.id },
    });
    const base = Date.now();
    const at = new Date(base + 3 * 60_000);
    const created = await t.inject({
      method: 'POST',
      url: `/api/clients/${c}/reminders`,
      token: leadSales.token,
      payload: { title: 'Перезвонить', scheduled_time: at.toISOString() },
    });
    expect(created.statusCode, created.body).toBe(201);
    const far = await t.inject({
      method: 'POST',
      url: `/api/clients/${c}/reminders`,
      token: leadSales.token,
      payload: { title: 'Потом', scheduled_time: new Date(base + 60 * 60_000).toISOString() },
    });
    const cancelled = (
      await t.inject({
        method: 'POST',
        url: `/api/clients/${c}/reminders`,
        token: leadSales.token,
        payload: { title: 'Отменено', scheduled_time: new Date(base + 2 * 60_000).toISOString() },
      })
    ).json();
    await t.inject({
      method: 'PUT',
      url: `/api/reminders/${cancelled.id}`,
      token: leadSales.token,
      payload: { status: 'cancelled' },
    });
    expect(far.statusCode).toBe(201);

    const one = recordingWorker();
    const two = recordingWorker();
    // Ten minutes before: nothing yet.
    expect((await one.worker.tick(new Date(base - 10 * 60_000))).created).toBe(0);
    // Two processes scan and push at the same moment.
    const results = await Promise.all([one.worker.tick(new Date(base)), two.worker.tick(new Date(base))]);
    expect(results[0].created + results[1].created).toBe(2); // author (team lead) and manager
    const reminderEvents = [...one.events, ...two.events].filter(
      (e) => e.type === 'notification.new' && (e.payload.notification as { type: string }).type === 'reminder_upcoming',
    );
    expect(reminderEvents.map((e) => ('user_id' in e ? e.user_id : '')).sort()).toEqual(
      [leadSales.id, sales.id].sort(),
    );
    const upcoming = (await list(sales)).items.filter((n) => n.type === 'reminder_upcoming');
    expect(upcoming).toHaveLength(1);
    expect(upcoming[0]).toMatchObject({ client_id: c, client_name: 'Remi', reminder_title: 'Перезвонить' });

    // Again a minute later: nothing new.
    expect((await one.worker.tick(new Date(base + 60_000))).created).toBe(0);
    // Due.
    const due = await one.worker.tick(new Date(at.getTime() + 1000));
    expect(due.created).toBe(2);
    expect((await list(leadSales)).items.filter((n) => n.type === 'reminder_due')).toHaveLength(1);
    expect((await one.worker.tick(new Date(at.getTime() + 30_000))).created).toBe(0);
    // The cancelled one never notified anyone.
    const all = await t.db
      .selectFrom('notifications')
      .select('reminder_id')
      .where('reminder_id', '=', cancelled.id)
      .execute();
    expect(all).toEqual([]);
  });

  it('a new withdrawal request notifies the staff who may see it (finance.view and the client in scope)', async () => {
    const client = await registerClient(t, 'Wanda');
    await fund(t, client.accountId, 50_000);
    await t.inject({
      method: 'PUT',
      url: `/api/clients/${client.clientId}`,
      token: superadmin.token,
      payload: { assigned_manager: retention.id },
    });
    const count = async (who: Staff) =>
      (await list(who)).items.filter((n) => n.type === 'withdrawal_request' && n.client_id === client.clientId).length;
    const res = await t.inject({
      method: 'POST',
      url: '/api/withdraw-requests',
      token: client.token,
      payload: { amount: 120.5, card_number: '4111111111111111', card_holder: 'Wanda W', card_expiry: validExpiry() },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await count(superadmin)).toBe(1);
    expect(await count(retention)).toBe(1);
    expect(await count(leadRetention)).toBe(1);
    expect(await count(otherRetention)).toBe(0);
    expect(await count(sales)).toBe(0);
    expect(await count(leadSales)).toBe(0);
    const note = (await list(retention)).items.find((n) => n.type === 'withdrawal_request')!;
    expect(note.amount).toBe(120.5);
    expect(JSON.stringify(note)).not.toContain('4111111111111111');

    // The card's summary shows it with the last four digits only.
    const summary = (
      await t.inject({ method: 'GET', url: `/api/clients/${client.clientId}/summary`, token: retention.token })
    ).json();
    expect(summary.withdrawal_count).toBe(1);
    expect(summary.withdrawals[0]).toMatchObject({ amount: 120.5, status: 'pending', card_last4: '1111' });
    expect(JSON.stringify(summary)).not.toContain('4111111111111111');
  });

  it('the outbox pushes each committed notification once, to its user', async () => {
    const { worker, events } = recordingWorker();
    await worker.tick(new Date(0));
    const pushedBefore = events.length;
    const c = await newClient(superadmin, 'Pushy');
    await t.inject({
      method: 'PUT',
      url: `/api/clients/${c}`,
      token: superadmin.token,
      payload: { assigned_manager: sales.id },
    });
    const { pushed } = await worker.tick(new Date(0));
    expect(pushed).toBe(1);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'notification.new', user_id: sales.id });
    expect(
      (last as unknown as { payload: { notification: { client_id: number } } }).payload.notification.client_id,
    ).toBe(c);
    expect(events.length).toBe(pushedBefore + 1);
    expect((await worker.tick(new Date(0))).pushed).toBe(0);

    // A bulk assignment of several clients is one push for the manager, carrying the count.
    const many = [
      await newClient(superadmin, 'M1'),
      await newClient(superadmin, 'M2'),
      await newClient(superadmin, 'M3'),
    ];
    await t.inject({
      method: 'POST',
      url: '/api/clients/bulk-assign-manager',
      token: superadmin.token,
      payload: { client_ids: many, assigned_manager: retention.id },
    });
    const before = events.length;
    expect((await worker.tick(new Date(0))).pushed).toBe(3);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({
      type: 'notification.new',
      user_id: retention.id,
      payload: { count: 3, types: ['client_assigned'] },
    });
  });
});
