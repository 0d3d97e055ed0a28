import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** Comments and reminders on the client card and the calendar: validation, order, scope (D5), audit. */
describe.each(dbKinds())('comments and reminders on %s', (kind) => {
  let t: TestApp;
  let admin: { id: string; token: string };
  let managerA: { id: string; token: string };
  let managerB: { id: string; token: string };
  let clientA: number;
  let clientB: number;

  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.userWithToken('admin');
    managerA = await t.userWithToken('sales_manager');
    managerB = await t.userWithToken('sales_manager');
    const mk = async (token: string, name: string) =>
      (
        await t.inject({
          method: 'POST',
          url: '/api/clients',
          token,
          payload: { name, email: `${name.toLowerCase()}@c.test`, phone: '+380501234567', country: 'Украина' },
        })
      ).json().id as number;
    clientA = await mk(managerA.token, 'Alpha');
    clientB = await mk(managerB.token, 'Beta');
  });
  afterAll(() => t.close());

  it('comments: added, pinned first then newest, last_comment_date moved, pin/unpin, audited', async () => {
    const post = (payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: `/api/clients/${clientA}/comments`, token: managerA.token, payload });
    const c1 = await post({ text: '  Первый звонок  ', client_id: clientA });
    expect(c1.statusCode, c1.body).toBe(201);
    expect(c1.json()).toMatchObject({
      text: 'Первый звонок',
      is_pinned: false,
      user_id: managerA.id,
      client_id: clientA,
    });
    const c2 = (await post({ text: 'Важно', is_pinned: true })).json();
    const c3 = (await post({ text: 'Третий' })).json();
    const list = (
      await t.inject({ method: 'GET', url: `/api/clients/${clientA}/comments`, token: managerA.token })
    ).json();
    expect(list.total).toBe(3);
    expect(list.items.map((c: { id: number }) => c.id)).toEqual([c2.id, c3.id, c1.json().id]);
    const client = await t.db
      .selectFrom('clients')
      .select('last_comment_date')
      .where('id', '=', clientA)
      .executeTakeFirstOrThrow();
    expect(new Date(client.last_comment_date!).toISOString()).toBe(c3.created_at);
    const unpin = await t.inject({
      method: 'PUT',
      url: `/api/comments/${c2.id}`,
      token: managerA.token,
      payload: { is_pinned: false },
    });
    expect(unpin.json().is_pinned).toBe(false);
    expect(await t.auditCount('comment.create')).toBe(3);
    const pinAudit = (await t.auditRows('comment.pin')).at(-1)!;
    expect(pinAudit.before).toMatchObject({ is_pinned: true });
    expect(pinAudit.after).toMatchObject({ is_pinned: false });
  });

  it('comments: validation', async () => {
    const post = (payload: unknown) =>
      t.inject({
        method: 'POST',
        url: `/api/clients/${clientA}/comments`,
        token: managerA.token,
        payload: payload as Record<string, unknown>,
      });
    expect((await post({ text: '   ' })).json().detail).toBe('text: Обязательное поле');
    expect((await post({ text: 'x'.repeat(5001) })).json().detail).toContain('text');
    expect((await post({ text: 'ok', client_id: clientB })).statusCode).toBe(400);
    expect(
      (await t.inject({ method: 'PUT', url: '/api/comments/1', token: managerA.token, payload: {} })).json().detail,
    ).toContain('is_pinned');
  });

  it('reminders: create, list on the card, status alone, edit, delete; audited', async () => {
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const res = await t.inject({
      method: 'POST',
      url: `/api/clients/${clientA}/reminders`,
      token: managerA.token,
      payload: { title: 'Перезвонить', description: 'после 18:00', scheduled_time: soon },
    });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json();
    expect(r).toMatchObject({
      title: 'Перезвонить',
      status: 'pending',
      client_name: 'Alpha',
      created_by: managerA.id,
      scheduled_time: soon,
    });
    const card = (
      await t.inject({ method: 'GET', url: `/api/clients/${clientA}/reminders`, token: managerA.token })
    ).json();
    expect(card.items.map((x: { id: number }) => x.id)).toEqual([r.id]);
    const done = await t.inject({
      method: 'PUT',
      url: `/api/reminders/${r.id}`,
      token: managerA.token,
      payload: { status: 'completed' },
    });
    expect(done.json().status).toBe('completed');
    const later = new Date(Date.now() + 2 * 86400_000).toISOString();
    const edited = await t.inject({
      method: 'PUT',
      url: `/api/reminders/${r.id}`,
      token: managerA.token,
      payload: { title: 'Перезвонить снова', scheduled_time: later, status: 'pending', description: null },
    });
    expect(edited.json()).toMatchObject({
      title: 'Перезвонить снова',
      scheduled_time: later,
      status: 'pending',
      description: '',
    });
    const audit = (await t.auditRows('reminder.update')).at(-1)!;
    expect(audit.before).toMatchObject({ title: 'Перезвонить', status: 'completed' });
    expect(audit.after).toMatchObject({ title: 'Перезвонить снова', status: 'pending' });
    expect((await t.inject({ method: 'DELETE', url: `/api/reminders/${r.id}`, token: managerA.token })).json()).toEqual(
      { ok: true },
    );
    expect(
      (await t.inject({ method: 'DELETE', url: `/api/reminders/${r.id}`, token: managerA.token })).statusCode,
    ).toBe(404);
    expect(await t.auditCount('reminder.create')).toBeGreaterThanOrEqual(1);
    expect(await t.auditCount('reminder.delete')).toBe(1);
  });

  it('reminders: validation', async () => {
    const post = (payload: Record<string, unknown>) =>
      t.inject({ method: 'POST', url: `/api/clients/${clientA}/reminders`, token: managerA.token, payload });
    const none = await post({});
    expect(none.json().detail).toContain('title: Обязательное поле');
    expect(none.json().detail).toContain('scheduled_time: Обязательное поле');
    expect((await post({ title: 'x', scheduled_time: 'tomorrow' })).json().detail).toContain('scheduled_time');
    expect(
      (await t.inject({ method: 'PUT', url: '/api/reminders/1', token: admin.token, payload: { status: 'done' } }))
        .statusCode,
    ).toBe(400);
    expect(
      (await t.inject({ method: 'PUT', url: '/api/reminders/1', token: admin.token, payload: {} })).statusCode,
    ).toBe(400);
  });

  it('a reminder for a time already gone is refused; an old one can still be edited but not moved into the past', async () => {
    const post = (scheduled_time: string) =>
      t.inject({
        method: 'POST',
        url: `/api/clients/${clientA}/reminders`,
        token: managerA.token,
        payload: { title: 'Вчера', scheduled_time },
      });
    const before = await t.db
      .selectFrom('reminders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const past = await post(new Date(Date.now() - 86400_000).toISOString());
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ code: 'reminder_in_past' });
    expect(past.json().detail).toContain('уже прошло');
    const after = await t.db
      .selectFrom('reminders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));

    // A reminder that came due long ago (written straight to the table, as time passing would leave it).
    const old = await t.db
      .insertInto('reminders')
      .values({
        client_id: clientA,
        title: 'Старое',
        description: '',
        scheduled_time: new Date(Date.now() - 3 * 86400_000),
        status: 'pending',
        created_by: managerA.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const put = (payload: Record<string, unknown>) =>
      t.inject({ method: 'PUT', url: `/api/reminders/${old.id}`, token: managerA.token, payload });
    const current = (await t.inject({ method: 'GET', url: `/api/clients/${clientA}/reminders`, token: managerA.token }))
      .json()
      .items.find((r: { id: number }) => r.id === Number(old.id));
    // The edit form sends the time back unchanged with the new title: accepted.
    const retitled = await put({
      title: 'Старое, выполнено',
      scheduled_time: current.scheduled_time,
      status: 'completed',
    });
    expect(retitled.statusCode, retitled.body).toBe(200);
    expect(retitled.json()).toMatchObject({ title: 'Старое, выполнено', status: 'completed' });
    const moved = await put({ scheduled_time: new Date(Date.now() - 2 * 86400_000).toISOString() });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().code).toBe('reminder_in_past');
    const ahead = await put({ scheduled_time: new Date(Date.now() + 86400_000).toISOString(), status: 'pending' });
    expect(ahead.statusCode, ahead.body).toBe(200);
    await t.inject({ method: 'DELETE', url: `/api/reminders/${old.id}`, token: managerA.token });
  });

  it('the calendar: default today..+7 days, a date range, status, creator and client search, paged; scoped', async () => {
    const at = (days: number) => new Date(Date.now() + days * 86400_000).toISOString();
    const make = async (client: number, token: string, title: string, when: string) =>
      (
        await t.inject({
          method: 'POST',
          url: `/api/clients/${client}/reminders`,
          token,
          payload: { title, scheduled_time: when },
        })
      ).json();
    await make(clientA, managerA.token, 'in 1 day', at(1));
    await make(clientA, managerA.token, 'in 3 days', at(3));
    await make(clientA, managerA.token, 'in 30 days', at(30));
    await make(clientB, managerB.token, 'B in 2 days', at(2));
    const get = async (q: string, token = admin.token) => {
      const res = await t.inject({ method: 'GET', url: `/api/reminders${q}`, token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { items: { title: string }[]; total: number };
    };
    const titles = (r: { items: { title: string }[] }) => r.items.map((x) => x.title);
    expect(titles(await get(''))).toEqual(['in 3 days', 'B in 2 days', 'in 1 day']);
    expect(titles(await get('?order=asc&all=true'))).toEqual(['in 1 day', 'B in 2 days', 'in 3 days', 'in 30 days']);
    // The calendar's dates are days in the business time zone (Europe/Kyiv in the tests), not UTC days: late in the
    // UTC evening Kyiv is already on the next day.
    const far = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Kyiv' }).format(new Date(at(30)));
    expect(titles(await get(`?date_from=${far}&date_to=${far}`))).toEqual(['in 30 days']);
    expect(titles(await get(`?created_by=${managerB.id}`))).toEqual(['B in 2 days']);
    expect(titles(await get('?search=alph&status=pending'))).toEqual(['in 3 days', 'in 1 day']);
    expect(titles(await get('?status=cancelled'))).toEqual([]);
    const page = await get('?per_page=2&page=2');
    expect(page.total).toBe(3);
    expect(titles(page)).toEqual(['in 1 day']);
    expect(titles(await get('', managerA.token))).toEqual(['in 3 days', 'in 1 day']);
  });

  it('an exact window (due_from..due_to): the reminders due around now, however many came due earlier', async () => {
    // §2.8 alerts: 120 pending reminders already due (earlier today or before) must not push the ones due in the next
    // minutes off the answer's page.
    const now = Date.now();
    await t.db
      .insertInto('reminders')
      .values(
        Array.from({ length: 120 }, (_, i) => ({
          client_id: clientA,
          title: `past ${i}`,
          description: '',
          scheduled_time: new Date(now - (10 + i) * 60_000),
          status: 'pending' as const,
          created_by: managerA.id,
        })),
      )
      .execute();
    const make = async (client: number, token: string, title: string, inMs: number) =>
      (
        await t.inject({
          method: 'POST',
          url: `/api/clients/${client}/reminders`,
          token,
          payload: { title, scheduled_time: new Date(now + inMs).toISOString() },
        })
      ).json() as { id: number };
    await make(clientA, managerA.token, 'just due', -30_000);
    await make(clientA, managerA.token, 'in 3 min', 3 * 60_000);
    const done = await make(clientA, managerA.token, 'done in 2 min', 2 * 60_000);
    await t.inject({
      method: 'PUT',
      url: `/api/reminders/${done.id}`,
      token: managerA.token,
      payload: { status: 'completed' },
    });
    await make(clientA, managerA.token, 'in 6 min', 6 * 60_000);
    await make(clientB, managerB.token, 'B in 1 min', 60_000);

    const window = async (from: number, to: number, token = managerA.token) => {
      const q = new URLSearchParams({
        due_from: new Date(from).toISOString(),
        due_to: new Date(to).toISOString(),
        status: 'pending',
        order: 'asc',
        per_page: '100',
      });
      const res = await t.inject({ method: 'GET', url: `/api/reminders?${q}`, token });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { items: { title: string }[] }).items.map((r) => r.title);
    };
    expect(await window(now - 2 * 60_000, now + 5 * 60_000)).toEqual(['just due', 'in 3 min']);
    // Both ends included; another manager's reminder stays out of scope, and is there for its own manager.
    expect(await window(now + 3 * 60_000, now + 6 * 60_000)).toEqual(['in 3 min', 'in 6 min']);
    expect(await window(now, now + 5 * 60_000, managerB.token)).toEqual(['B in 1 min']);

    const bad = await t.inject({
      method: 'GET',
      url: `/api/reminders?due_from=${encodeURIComponent(new Date(now).toISOString())}&due_to=${encodeURIComponent(new Date(now - 1).toISOString())}`,
      token: managerA.token,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toContain('due_to');
    const notInstant = await t.inject({ method: 'GET', url: '/api/reminders?due_from=tomorrow', token: admin.token });
    expect(notInstant.statusCode).toBe(400);
    expect(notInstant.json().detail).toContain('due_from');
  });

  it('scope: another manager’s client, its comments and reminders answer 404', async () => {
    const comment = (
      await t.inject({
        method: 'POST',
        url: `/api/clients/${clientB}/comments`,
        token: managerB.token,
        payload: { text: 'B' },
      })
    ).json();
    const reminder = (
      await t.inject({
        method: 'POST',
        url: `/api/clients/${clientB}/reminders`,
        token: managerB.token,
        payload: { title: 'B', scheduled_time: new Date().toISOString() },
      })
    ).json();
    const calls = [
      t.inject({ method: 'GET', url: `/api/clients/${clientB}/comments`, token: managerA.token }),
      t.inject({
        method: 'POST',
        url: `/api/clients/${clientB}/comments`,
        token: managerA.token,
        payload: { text: 'x' },
      }),
      t.inject({
        method: 'PUT',
        url: `/api/comments/${comment.id}`,
        token: managerA.token,
        payload: { is_pinned: true },
      }),
      t.inject({ method: 'GET', url: `/api/clients/${clientB}/reminders`, token: managerA.token }),
      t.inject({
        method: 'POST',
        url: `/api/clients/${clientB}/reminders`,
        token: managerA.token,
        payload: { title: 'x', scheduled_time: new Date().toISOString() },
      }),
      t.inject({
        method: 'PUT',
        url: `/api/reminders/${reminder.id}`,
        token: managerA.token,
        payload: { status: 'cancelled' },
      }),
      t.inject({ method: 'DELETE', url: `/api/reminders/${reminder.id}`, token: managerA.token }),
    ];
    for (const res of await Promise.all(calls)) expect(res.statusCode, res.body).toBe(404);
  });
});
