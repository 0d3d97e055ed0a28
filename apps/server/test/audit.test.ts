import type { AuditEntry } from '@brokerage/shared';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAudit } from '../src/platform/audit/audit.js';
import { createTestApp, dbKinds, type TestApp } from './helpers.js';

/** A made-up actor whose rows the tests insert with explicit times. */
const ACTOR = '11111111-1111-4111-8111-111111111111';

/** The audit log of decisions.md D9, read at /crm/audit. */
describe.each(dbKinds())('audit log on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let superadminId: string;

  async function insertAt(at: string, action: string, actorId: string | null = ACTOR, entityId = at) {
    await t.db
      .insertInto('audit_log')
      .values({
        at,
        actor_id: actorId,
        actor_name: 'Timed Actor',
        actor_role: 'admin',
        action,
        entity_type: 'user',
        entity_id: entityId,
        before: null,
        after: JSON.stringify({ at }),
        ip: '10.0.0.1',
      })
      .execute();
  }

  beforeAll(async () => {
    t = await createTestApp(kind);
    const s = await t.userWithToken('superadmin');
    token = s.token;
    superadminId = s.id;
    // Around midnight in Kyiv: winter (UTC+2) on 15 January, summer (UTC+3) on 1 July 2026.
    await insertAt('2026-01-14T21:59:59.000Z', 'user.update'); // 14 Jan 23:59:59 Kyiv
    await insertAt('2026-01-14T22:00:00.000Z', 'user.delete'); // 15 Jan 00:00:00 Kyiv
    await insertAt('2026-01-15T12:00:00.000Z', 'user.update'); // 15 Jan 14:00 Kyiv
    await insertAt('2026-01-15T21:59:59.999Z', 'user.create'); // 15 Jan 23:59:59.999 Kyiv
    await insertAt('2026-01-15T22:00:00.000Z', 'user.update'); // 16 Jan 00:00:00 Kyiv
    await insertAt('2026-06-30T20:59:59.000Z', 'user.update'); // 30 Jun 23:59:59 Kyiv
    await insertAt('2026-06-30T21:00:00.000Z', 'user.update'); // 1 Jul 00:00:00 Kyiv
    await insertAt('2026-07-01T20:59:59.000Z', 'user.update'); // 1 Jul 23:59:59 Kyiv
    await insertAt('2026-07-01T21:00:00.000Z', 'user.update'); // 2 Jul 00:00:00 Kyiv
  });
  afterAll(() => t.close());

  const read = async (query: string) => {
    const res = await t.inject({ method: 'GET', url: `/api/audit${query}`, token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { items: AuditEntry[]; total: number };
  };
  const times = async (query: string) => (await read(`?actor_id=${ACTOR}${query}`)).items.map((i) => i.at);

  it('is read by a superadmin only', async () => {
    for (const role of [
      'admin',
      'team_lead_sales',
      'team_lead_retention',
      'sales_manager',
      'retention_manager',
      'manager',
      'client',
    ] as const) {
      const u = await t.userWithToken(role);
      const res = await t.inject({ method: 'GET', url: '/api/audit', token: u.token });
      expect(res.statusCode, role).toBe(403);
    }
    expect((await t.inject({ method: 'GET', url: '/api/audit' })).statusCode).toBe(401);
  });

  it('lists the newest first, with who, what, which record, before, after and IP', async () => {
    const body = await read('');
    const ats = body.items.map((i) => i.at);
    expect([...ats].sort().reverse()).toEqual(ats);
    const login = body.items.find((i) => i.action === 'auth.login' && i.actor_id === superadminId);
    expect(login).toMatchObject({
      id: expect.any(Number),
      actor_role: 'superadmin',
      entity_type: 'user',
      entity_id: superadminId,
      ip: '127.0.0.1',
    });
    expect(body.items.every((i) => i.at.endsWith('Z'))).toBe(true);
    const timed = body.items.find((i) => i.entity_id === '2026-01-15T12:00:00.000Z');
    expect(timed).toMatchObject({
      actor_id: ACTOR,
      actor_name: 'Timed Actor',
      action: 'user.update',
      before: null,
      after: { at: '2026-01-15T12:00:00.000Z' },
      ip: '10.0.0.1',
    });
  });

  it('orders rows written in the same instant by their id, newest first', async () => {
    const same = '2025-03-03T03:03:03.000Z';
    const other = '22222222-2222-4222-8222-222222222222';
    await insertAt(same, 'user.update', other, 'first');
    await insertAt(same, 'user.update', other, 'second');
    const items = (await read(`?actor_id=${other}`)).items;
    expect(items.map((i) => i.entity_id)).toEqual(['second', 'first']);
  });

  it('filters by actor and by action', async () => {
    const byActor = await read(`?actor_id=${ACTOR}`);
    expect(byActor.total).toBe(9);
    expect(byActor.items.every((i) => i.actor_id === ACTOR)).toBe(true);
    const byAction = await read(`?actor_id=${ACTOR}&action=user.delete`);
    expect(byAction.items.map((i) => i.at)).toEqual(['2026-01-14T22:00:00.000Z']);
    const logins = await read(`?action=auth.login&actor_id=${superadminId}`);
    expect(logins.total).toBe(1);
    expect((await read('?action=no.such.action')).total).toBe(0);
  });

  it('reads date_from and date_to as whole days in Europe/Kyiv, winter and summer', async () => {
    expect(await times('&date_from=2026-01-15&date_to=2026-01-15')).toEqual([
      '2026-01-15T21:59:59.999Z',
      '2026-01-15T12:00:00.000Z',
      '2026-01-14T22:00:00.000Z',
    ]);
    expect(await times('&date_to=2026-01-14')).toEqual(['2026-01-14T21:59:59.000Z']);
    expect(await times('&date_from=2026-01-16&date_to=2026-01-16')).toEqual(['2026-01-15T22:00:00.000Z']);
    expect(await times('&date_from=2026-07-01&date_to=2026-07-01')).toEqual([
      '2026-07-01T20:59:59.000Z',
      '2026-06-30T21:00:00.000Z',
    ]);
    expect(await times('&date_from=2026-07-02')).toEqual(['2026-07-01T21:00:00.000Z']);
    expect(await times('&date_from=2026-01-16&date_to=2026-06-30')).toEqual([
      '2026-06-30T20:59:59.000Z',
      '2026-01-15T22:00:00.000Z',
    ]);
    expect(await times('&date_from=2026-02-01&date_to=2026-01-01')).toEqual([]);
  });

  it('uses the configured business time zone', async () => {
    const utc = await createTestApp(kind, { BUSINESS_TIMEZONE: 'UTC' });
    try {
      const s = await utc.userWithToken('superadmin');
      const at = '2026-01-14T22:30:00.000Z'; // 14 January in UTC, 15 January in Kyiv
      await utc.db
        .insertInto('audit_log')
        .values({
          at,
          actor_id: ACTOR,
          action: 'user.update',
          actor_name: null,
          actor_role: null,
          entity_type: null,
          entity_id: null,
          before: null,
          after: null,
          ip: null,
        })
        .execute();
      const res = await utc.inject({
        method: 'GET',
        url: `/api/audit?actor_id=${ACTOR}&date_from=2026-01-14&date_to=2026-01-14`,
        token: s.token,
      });
      expect(res.json().items.map((i: AuditEntry) => i.at)).toEqual([at]);
    } finally {
      await utc.close();
    }
  });

  it('pages on the server, with the total of the filtered rows', async () => {
    const all = await times('');
    const p1 = await read(`?actor_id=${ACTOR}&per_page=4&page=1`);
    const p2 = await read(`?actor_id=${ACTOR}&per_page=4&page=2`);
    const p3 = await read(`?actor_id=${ACTOR}&per_page=4&page=3`);
    expect([p1.total, p2.total, p3.total]).toEqual([9, 9, 9]);
    expect([p1.items.length, p2.items.length, p3.items.length]).toEqual([4, 4, 1]);
    expect([...p1.items, ...p2.items, ...p3.items].map((i) => i.at)).toEqual(all);
    const dated = await read(`?actor_id=${ACTOR}&date_from=2026-07-01&per_page=1`);
    expect(dated.total).toBe(3);
    expect(dated.items).toHaveLength(1);
  });

  it('refuses a bad date, actor id or page with 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?date_from=15.01.2026', 'date_from'],
      ['?date_to=2026-13-01', 'date_to'],
      ['?date_from=2026-02-30', 'date_from'],
      ['?date_from=yesterday', 'date_from'],
      ['?date_from=0000-01-01', 'date_from'],
      ['?actor_id=42', 'actor_id'],
      ['?per_page=0', 'per_page'],
      ['?page=-1', 'page'],
      ['?sort=at', 'sort'],
    ] as const) {
      const res = await t.inject({ method: 'GET', url: `/api/audit${query}`, token });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().detail, query).toContain(field);
    }
  });

  it('never stores a secret a caller passes in before or after', async () => {
    await writeAudit(
      t.db,
      { id: null, name: 'test', role: 'system', department: null, ip: null },
      {
        action: 'user.update',
        entityType: 'user',
        entityId: 'scrub-check',
        before: { name: 'Ann', password: 'p1', password_hash: '$argon2id$x' },
        after: {
          name: 'Ann',
          nested: { api_token: 'tok', card_number: '4111111111111111', kept: 1 },
          list: [{ new_password: 'p2' }],
        },
      },
    );
    const row = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity_id', '=', 'scrub-check')
      .executeTakeFirstOrThrow();
    expect(row.before).toEqual({ name: 'Ann' });
    expect(row.after).toEqual({ name: 'Ann', nested: { kept: 1 }, list: [{}] });
  });

  it('refuses UPDATE and DELETE in the database itself', async () => {
    const n0 = await t.auditCount();
    await expect(sql`update audit_log set action = 'tampered'`.execute(t.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_log where actor_id = ${ACTOR}`.execute(t.db)).rejects.toThrow(/append-only/);
    await expect(
      t.db.updateTable('audit_log').set({ ip: null }).where('actor_id', '=', ACTOR).execute(),
    ).rejects.toThrow(/append-only/);
    expect(await t.auditCount()).toBe(n0);
    expect(await t.auditCount('tampered')).toBe(0);
  });
});
