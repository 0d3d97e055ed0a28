import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditVerifyResponse } from '@brokerage/shared';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAudit } from '../src/platform/audit/audit.js';
import { AUDIT_CHAIN_LOCK } from '../src/platform/db/migrations/2026-11-25T0018-audit-chain.js';
import { Migrator } from 'kysely';
import { randomBytes } from 'node:crypto';
import { MIGRATIONS, openDb, type Db, type DbHandle } from '../src/platform/db/index.js';
import { CONTENT_COLUMNS, legacyCanonical, verifyAuditChain, type ContentRow } from '../src/platform/audit/chain.js';
import {
  AuditChainKey,
  currentAuditChainKey,
  keyFingerprint,
  setCurrentAuditChainKey,
} from '../src/platform/audit/chain-key.js';
import { AuditCheckpointWriter, checkpointFile } from '../src/platform/audit/checkpoints.js';
import { runCli } from '../src/cli.js';
import type { Actor } from '../src/platform/auth/actor.js';
import { createTestApp, dbKinds, runAdminCommand, TEST_AUDIT_CHAIN_KEY, type TestApp } from './helpers.js';
import { startServerProcess } from './server-process.js';

const ACTOR: Actor = {
  id: '22222222-2222-4222-8222-222222222222',
  name: 'Chain Tester',
  role: 'admin',
  department: null,
  ip: '10.1.1.1',
};

/** Runs `statement` with every trigger off, as a superuser tampering by hand would (session_replication_role). */
async function asTamperer(db: Db, statement: (trx: Db) => Promise<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await statement(trx);
  });
}

/**
 * What an attacker with the database but not the key does after editing (issue 20 §7): makes every hash from place
 * `from` on again with the database's own audit_log_canonical, relinking each row to the one before.
 */
async function rechainWithSha(trx: Db, from: number): Promise<void> {
  await sql
    .raw(
      `
    do $$
    declare
      r audit_log;
      prev text;
    begin
      select coalesce((select hash from audit_log where seq = ${from - 1}), '') into prev;
      for r in select * from audit_log where seq >= ${from} order by seq loop
        r.prev_hash := prev;
        r.hash := encode(sha256(convert_to(audit_log_canonical(r), 'UTF8')), 'hex');
        update audit_log set prev_hash = r.prev_hash, hash = r.hash where id = r.id;
        prev := r.hash;
      end loop;
    end $$`,
    )
    .execute(trx);
}

/** Issue 13 item 5: every audit row is hashed onto one chain at commit; a row edited, removed or inserted is found. */
describe.each(dbKinds())('tamper-evident audit chain on %s', (kind) => {
  let t: TestApp;
  let token: string;
  let dataDir: string | undefined;

  const verifyApi = async () => {
    const res = await t.inject({ method: 'GET', url: '/api/audit/verify', token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as AuditVerifyResponse;
  };
  const audited = async (n: number, label: string) => {
    await t.db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i++)
        await writeAudit(trx, ACTOR, {
          action: 'user.update',
          entityType: 'user',
          entityId: `${label}-${i}`,
          before: { n: i, nested: { ü: 'ß', list: [1, 2.5, null] } },
          after: { n: i + 1, label },
        });
    });
  };
  const rowCount = async () =>
    Number(
      (
        await t.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    if (kind === 'pglite') dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-chain-'));
    t = await createTestApp(kind, {}, dataDir ? { dataDir } : {});
    token = (await t.userWithToken('superadmin')).token;
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stamps each committed row onto one chain; the audit page and verify-audit agree', async () => {
    await audited(5, 'first');
    const rows = await t.db.selectFrom('audit_log').select(['id', 'seq', 'prev_hash', 'hash']).orderBy('seq').execute();
    expect(rows.length).toBeGreaterThanOrEqual(6); // the superadmin's sign-in and the five above
    rows.forEach((r, i) => {
      expect(Number(r.seq)).toBe(i + 1);
      expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.prev_hash).toBe(i === 0 ? '' : rows[i - 1]!.hash);
    });
    const v = await verifyApi();
    expect(v).toEqual({ status: 'not_anchored', verified: rows.length, verified_up_to: rows.length, broken: null });

    const admin = await t.userWithToken('admin');
    const refused = await t.inject({ method: 'GET', url: '/api/audit/verify', token: admin.token });
    expect(refused.statusCode).toBe(403);

    // This app writes no checkpoints (its DATA_DIR does not exist): the chain is whole in itself but not anchored,
    // and verify-audit says so with its own exit code rather than "intact" (issue 20 §7, review).
    const run = await runAdminCommand(t, ['verify-audit']);
    t = run.t;
    token = (await t.userWithToken('superadmin')).token;
    expect(run.code, run.output).toBe(5);
    expect(run.output).toMatch(/Audit chain intact: verified \d+ rows/);
    expect(run.output).toContain('Not anchored: the chain is consistent in itself, but there is no checkpoint file');
    expect(run.output).not.toContain('broken');
  });

  it('chains the rows written before the chain existed, in id order; keeps checking them the old way once keyed (issue 20 §7)', async () => {
    // A database at the migration before the chain, with audit rows in it.
    let handle: DbHandle;
    let drop = async () => {};
    if (kind === 'pglite') handle = await openDb({ dataDir: 'memory' });
    else {
      const name = `brokerage_chain_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${name}`;
      handle = await openDb({ databaseUrl: url.toString(), dataDir: 'memory', poolSize: 2 });
      drop = async () => {
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      };
    }
    try {
      const names = Object.keys(MIGRATIONS);
      const before = names[names.indexOf('2026-11-25T0018-audit-chain') - 1]!;
      const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
      expect((await migrator.migrateTo(before)).error).toBeUndefined();
      for (let i = 0; i < 5; i++)
        await sql`insert into audit_log (action, entity_id, after) values ('user.update', ${`old-${i}`}, ${JSON.stringify({ i })}::jsonb)`.execute(
          handle.db,
        );
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await handle.db.selectFrom('audit_log').select(['id', 'seq']).orderBy('id').execute();
      expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5]);
      // Migration 0023 recorded the switch-over at the head: those five stay sha-256, checked the old way.
      const key = Buffer.from(TEST_AUDIT_CHAIN_KEY, 'base64');
      expect(await verifyAuditChain(handle.db, { key })).toEqual({
        status: 'not_anchored',
        verified: 5,
        verifiedUpTo: 5,
        broken: null,
        keyedAfter: 5,
        newestCheckpoint: null,
      });
      // Rows written now are stamped by the server's driver with the key, continuing the old chain.
      await handle.db.transaction().execute(async (trx) => {
        await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'keyed-1' });
        await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'keyed-2' });
      });
      const chained = await sql<{ seq: string; hash: string; sha: string }>`
        select seq::text as seq, hash, encode(sha256(convert_to(audit_log_canonical(a), 'UTF8')), 'hex') as sha
        from audit_log a order by seq`.execute(handle.db);
      expect(chained.rows.map((r) => r.hash === r.sha)).toEqual([true, true, true, true, true, false, false]);
      expect(await verifyAuditChain(handle.db, { key })).toMatchObject({ verified: 7, broken: null, keyedAfter: 5 });
      // Another key is told apart from tampering by the rows themselves (no checkpoint here names a key).
      expect(await verifyAuditChain(handle.db, { key: randomBytes(32) })).toMatchObject({
        status: 'key_mismatch',
        verified: 5,
        verifiedUpTo: 5,
      });
      expect(await verifyAuditChain(handle.db, { key: null })).toMatchObject({ status: 'key_missing', verified: 5 });
      // Rewriting an old row and making every later hash again with the database's own function: the first keyed
      // row gives it away, its hash cannot be made without the key.
      await asTamperer(handle.db, async (trx) => {
        await sql`update audit_log set after = '{"i": 99}'::jsonb where seq = 2`.execute(trx);
        await rechainWithSha(trx, 2);
      });
      expect(await verifyAuditChain(handle.db, { key })).toMatchObject({
        status: 'broken',
        broken: { seq: '6', reason: 'content' },
      });
    } finally {
      await handle.close();
      await drop();
    }
  });

  it('takes the chain lock only at commit: a transaction holds no lock and no stamp until it commits', async () => {
    let idInside = '';
    await t.db.transaction().execute(async (trx) => {
      await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'lock-check' });
      const row = await trx
        .selectFrom('audit_log')
        .select(['id', 'seq', 'hash'])
        .where('entity_id', '=', 'lock-check')
        .executeTakeFirstOrThrow();
      idInside = row.id;
      expect(row.seq).toBeNull();
      expect(row.hash).toBeNull();
      const locks = await sql<{ n: string }>`
        select count(*)::text as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`.execute(trx);
      expect(locks.rows[0]!.n).toBe('0');
    });
    const after = await t.db
      .selectFrom('audit_log')
      .select(['seq', 'hash'])
      .where('id', '=', idInside)
      .executeTakeFirstOrThrow();
    expect(after.seq).not.toBeNull();
    expect(after.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  // Only PostgreSQL has a second session to hold the lock (PGlite serves one connection).
  if (kind === 'postgres')
    it('waits for the chain lock at commit, not before: a held lock lets the work run and holds back only the commit', async () => {
      const holder = new pg.Client({ connectionString: t.url! });
      await holder.connect();
      try {
        await holder.query('select pg_advisory_lock($1)', [AUDIT_CHAIN_LOCK]);
        const events: string[] = [];
        let workDone!: () => void;
        const worked = new Promise<void>((resolve) => (workDone = resolve));
        const committed = t.db
          .transaction()
          .execute(async (trx) => {
            await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'held-lock' });
            await sql`select count(*) from audit_log`.execute(trx); // more work after the audit row
            events.push('work done');
            workDone();
          })
          .then(() => events.push('committed'));
        await worked; // the work ran while another session holds the chain lock
        // The commit is now waiting for the lock: the session shows as waiting on an advisory lock.
        for (;;) {
          const waiting = await holder.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
          );
          if (waiting.rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(events).toEqual(['work done']);
        events.push('lock released');
        await holder.query('select pg_advisory_unlock($1)', [AUDIT_CHAIN_LOCK]);
        await committed;
        expect(events).toEqual(['work done', 'lock released', 'committed']);
      } finally {
        await holder.end();
      }
      expect((await verifyApi()).broken).toBeNull();
    });

  it('keeps one unbroken chain under many parallel audited writes', async () => {
    const before = await rowCount();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.db.transaction().execute(async (trx) => {
          await writeAudit(trx, ACTOR, { action: 'user.update', entityId: `parallel-${i}-a` });
          if (kind === 'postgres') await sql`select pg_sleep(${(i % 5) / 200})`.execute(trx);
          await writeAudit(trx, ACTOR, { action: 'user.update', entityId: `parallel-${i}-b` });
        }),
      ),
    );
    // and through the real routes: parallel sign-ins, each audited in its own transaction
    const staff = await t.createUser('admin');
    await Promise.all(Array.from({ length: 10 }, () => t.login(staff.email)));
    const total = await rowCount();
    expect(total).toBe(before + 80 + 10);
    const v = await verifyApi();
    expect(v).toEqual({ status: 'not_anchored', verified: total, verified_up_to: total, broken: null });
  });

  it('names a row edited by hand, and the chain verifies again once it is put back', async () => {
    const target = await t.db
      .selectFrom('audit_log')
      .select(['id', 'seq', 'after'])
      .where('entity_id', '=', 'first-2')
      .executeTakeFirstOrThrow();
    // Without disabling the triggers, the database refuses: append-only, and the stamp cannot be redone.
    await expect(
      sql`update audit_log set after = '{"n": 999}'::jsonb where id = ${target.id}`.execute(t.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`update audit_log set hash = null where id = ${target.id}`.execute(t.db)).rejects.toThrow(
      /append-only/,
    );

    await asTamperer(t.db, (trx) =>
      sql`update audit_log set after = '{"n": 999}'::jsonb where id = ${target.id}`.execute(trx),
    );
    const v = await verifyApi();
    expect(v.broken).toEqual({ id: String(target.id), seq: String(target.seq), reason: 'content' });
    expect(v.verified_up_to).toBe(Number(target.seq) - 1);

    const run = await runAdminCommand(t, ['verify-audit']);
    t = run.t;
    token = (await t.userWithToken('superadmin')).token;
    expect(run.code).toBe(1);
    expect(run.output).toContain(`row ${target.id} (chain position ${target.seq})`);
    expect(run.output).toContain('edited');

    await asTamperer(t.db, (trx) =>
      sql`update audit_log set after = ${JSON.stringify(target.after)}::jsonb where id = ${target.id}`.execute(trx),
    );
    expect((await verifyApi()).broken).toBeNull();
  });

  it('names the row after one removed by hand', async () => {
    const rows = await t.db.selectFrom('audit_log').selectAll().orderBy('seq').limit(4).execute();
    const removed = rows[2]!;
    await asTamperer(t.db, async (trx) => {
      await sql`create table audit_saved as select * from audit_log where id = ${removed.id}`.execute(trx);
      await sql`delete from audit_log where id = ${removed.id}`.execute(trx);
    });
    const v = await verifyApi();
    expect(v.broken).toEqual({ id: String(rows[3]!.id), seq: String(rows[3]!.seq), reason: 'seq_gap' });
    expect(v.verified).toBe(2);

    // Put it back exactly (triggers still off), and the chain is whole again.
    await asTamperer(t.db, async (trx) => {
      await sql`insert into audit_log select * from audit_saved`.execute(trx);
      await sql`drop table audit_saved`.execute(trx);
    });
    expect((await verifyApi()).broken).toBeNull();
  });

  it('names a row inserted by hand, off the chain or with a made-up place on it', async () => {
    const forged = await t.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      return (
        await sql<{ id: string }>`
          insert into audit_log (actor_name, action, entity_id) values ('Nobody', 'user.delete', 'forged')
          returning id::text as id`.execute(trx)
      ).rows[0]!.id;
    });
    const total = await rowCount();
    let v = await verifyApi();
    expect(v.broken).toEqual({ id: forged, seq: null, reason: 'unchained' });
    expect(v.verified).toBe(total - 1);

    // A forger who appends it at the chain's head with the right prev_hash still cannot produce its hash.
    const head = await t.db
      .selectFrom('audit_log')
      .select(['seq', 'hash'])
      .where('seq', 'is not', null)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    await asTamperer(t.db, (trx) =>
      sql`update audit_log set seq = ${Number(head.seq) + 1}, prev_hash = ${head.hash}, hash = ${'f'.repeat(64)}
          where id = ${forged}`.execute(trx),
    );
    v = await verifyApi();
    expect(v.broken).toEqual({ id: forged, seq: String(Number(head.seq) + 1), reason: 'content' });
    expect(v.verified).toBe(total - 1);
  });
});

/**
 * Issue 20 §7: on a copy of the database with the triggers off, an attacker who does not hold the chain key cuts the
 * tail, rewrites a row and re-hashes the rest with the database's own function, or deletes a row and renumbers the
 * rest; `verify-audit` (run as an operator does: on PostgreSQL beside the running server, on the embedded database
 * with the server stopped) names the first bad row or the missing tail and exits 1. Before the key and the
 * checkpoints it said "intact" to all three.
 */
describe.each(dbKinds())('keyed audit chain and its checkpoints on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  let head: number;
  let boss: { id: string; email: string; token: string };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-keyed-'));
    t = await createTestApp(kind, { DATA_DIR: dir }, kind === 'pglite' ? { dataDir: dir } : {});
    boss = await t.userWithToken('superadmin');
    // Audit rows: a staff member created through the API, refused calls, and rows written by a service.
    const res = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      token: boss.token,
      payload: { name: 'Keyed Member', email: 'keyed.member@test.local', password: 'secret-pass-1', role: 'admin' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const member = await t.login('keyed.member@test.local', 'secret-pass-1');
    for (let i = 0; i < 4; i++)
      expect((await t.inject({ method: 'DELETE', url: `/api/users/${boss.id}`, token: member })).statusCode).toBe(403);
    for (let i = 0; i < 3; i++)
      await t.db.transaction().execute(async (trx) => {
        for (let j = 0; j < 5; j++)
          await writeAudit(trx, ACTOR, { action: 'user.update', entityId: `keyed-${i}-${j}`, after: { i, j, ü: 'ß' } });
      });
    const checkpoint = await t.app.auditCheckpoints.writeNow();
    head = Number(
      (
        await t.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.max('seq').as('m'))
          .executeTakeFirstOrThrow()
      ).m,
    );
    expect(head).toBeGreaterThanOrEqual(21);
    expect(checkpoint).toMatchObject({ seq: head, keyed_after: 0 });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const verifyAudit = async () => {
    const run = await runAdminCommand(t, ['verify-audit']);
    t = run.t;
    return run;
  };
  /** Tampers on a copy of the log, checks what verify-audit says, then puts the log back as it was. */
  const tampered = async (edit: (trx: Db) => Promise<void>) => {
    await asTamperer(t.db, async (trx) => {
      await sql`create table audit_copy as select * from audit_log`.execute(trx);
      await edit(trx);
    });
    const run = await verifyAudit();
    await asTamperer(t.db, async (trx) => {
      await sql`delete from audit_log`.execute(trx);
      await sql`insert into audit_log select * from audit_copy`.execute(trx);
      await sql`drop table audit_copy`.execute(trx);
    });
    return run;
  };

  it('verifies the untouched chain, against the checkpoint written outside the database', async () => {
    const lines = fs.readFileSync(path.join(dir, 'audit-checkpoints.log'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ seq: head, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const run = await verifyAudit();
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`Audit chain intact: verified ${head} rows.`);
    expect(run.output).toContain(`Checked against 1 checkpoint(s)`);
    expect(run.output).toContain(`the newest: chain position ${head}`);
  });

  it('reports a cut tail: the chain ends before the checkpoint', async () => {
    const run = await tampered(async (trx) => {
      await sql`delete from audit_log where seq > ${head - 3}`.execute(trx);
    });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`it ends at chain position ${head - 3}`);
    expect(run.output).toContain(`recorded position ${head}`);
    const api = await t.inject({ method: 'GET', url: '/api/audit/verify', token: boss.token });
    expect(api.json()).toEqual({ status: 'intact', verified: head, verified_up_to: head, broken: null }); // put back
  });

  it('reports a row rewritten and every later hash made again with audit_log_canonical', async () => {
    const row10 = await t.db.selectFrom('audit_log').select('id').where('seq', '=', '10').executeTakeFirstOrThrow();
    const run = await tampered(async (trx) => {
      await sql`update audit_log set after = '{"forged": true}'::jsonb where seq = 10`.execute(trx);
      await rechainWithSha(trx, 10);
      // The forged chain is whole by the database's own measure.
      const mismatched = await sql<{ n: string }>`
        select count(*)::text as n from audit_log a
        where hash <> encode(sha256(convert_to(audit_log_canonical(a), 'UTF8')), 'hex') and seq >= 10`.execute(trx);
      expect(mismatched.rows[0]!.n).toBe('0');
    });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`Audit chain broken at row ${row10.id} (chain position 10)`);
    expect(run.output).toContain('edited');
    expect(run.output).toContain('up to chain position 9');
  });

  it('reports a row deleted and the rest renumbered and re-hashed', async () => {
    const row6 = await t.db.selectFrom('audit_log').select('id').where('seq', '=', '6').executeTakeFirstOrThrow();
    const run = await tampered(async (trx) => {
      await sql`delete from audit_log where seq = 5`.execute(trx);
      await sql`update audit_log set seq = -seq where seq > 5`.execute(trx);
      await sql`update audit_log set seq = -seq - 1 where seq < 0`.execute(trx);
      await rechainWithSha(trx, 5);
    });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`Audit chain broken at row ${row6.id} (chain position 5)`);
    expect(run.output).toContain('up to chain position 4');
  });

  it('shows the same on the audit page, and a chain put back verifies again', async () => {
    await asTamperer(t.db, async (trx) => {
      await sql`create table audit_copy as select * from audit_log`.execute(trx);
      await sql`delete from audit_log where seq > ${head - 1}`.execute(trx);
    });
    const cut = await t.inject({ method: 'GET', url: '/api/audit/verify', token: boss.token });
    expect(cut.json()).toEqual({
      status: 'broken',
      verified: head - 1,
      verified_up_to: head - 1,
      broken: { id: null, seq: String(head), reason: 'missing_tail' },
    });
    await asTamperer(t.db, async (trx) => {
      await sql`insert into audit_log select * from audit_copy where seq > ${head - 1}`.execute(trx);
      await sql`drop table audit_copy`.execute(trx);
    });
    const run = await verifyAudit();
    expect(run.code, run.output).toBe(0);
  });

  it('tells a check with another key apart from tampering: "chain key does not match", exit 4 (issue 20 §7, review)', async () => {
    const run = await runAdminCommand(t, ['verify-audit'], { AUDIT_CHAIN_KEY: randomBytes(32).toString('base64') });
    t = run.t;
    expect(run.code, run.output).toBe(4);
    expect(run.output).toContain('Audit chain key does not match: the key from AUDIT_CHAIN_KEY');
    const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, 'audit-checkpoints.log'), 'utf8').trim()) as {
      key: string;
    };
    expect(run.output).toContain(`(the checkpoints name key ${checkpoint.key})`);
    expect(run.output).not.toMatch(/broken|edited|cut short/);
    // The server's own key still verifies (the command put the process's key back).
    await t.login(boss.email);
    expect((await verifyAudit()).code).toBe(0);
  });

  it('with no checkpoint naming a key, the rows tell another key from an edited first keyed row', async () => {
    const key = Buffer.from(TEST_AUDIT_CHAIN_KEY, 'base64');
    expect(await verifyAuditChain(t.db, { key: randomBytes(32), checkpoints: null })).toMatchObject({
      status: 'key_mismatch',
      verified: 0,
    });
    // The right key, and the first keyed row given a made-up hash: that is tampering, named at its row.
    await asTamperer(t.db, async (trx) => {
      await sql`create table audit_copy as select * from audit_log`.execute(trx);
      await sql`update audit_log set hash = ${'e'.repeat(64)} where seq = 1`.execute(trx);
    });
    try {
      expect(await verifyAuditChain(t.db, { key, checkpoints: null })).toMatchObject({
        status: 'broken',
        verified: 0,
        broken: { seq: '1', reason: 'content' },
      });
    } finally {
      await asTamperer(t.db, async (trx) => {
        await sql`delete from audit_log`.execute(trx);
        await sql`insert into audit_log select * from audit_copy`.execute(trx);
        await sql`drop table audit_copy`.execute(trx);
      });
    }
  });

  it('says "chain key missing" (exit 3), not tampering, when run without the key, and makes no key file', async () => {
    // The server has its key from AUDIT_CHAIN_KEY; run without it, the command finds no key file in DATA_DIR either.
    const run = await runAdminCommand(t, ['verify-audit'], { AUDIT_CHAIN_KEY: '' });
    t = run.t;
    expect(run.code, run.output).toBe(3);
    expect(run.output).toContain(
      'Audit chain key missing: the rows after chain position 0 are stamped with the chain key',
    );
    expect(run.output).toContain('not a finding of tampering');
    expect(run.output).not.toMatch(/broken|edited|cut short/);
    expect(fs.existsSync(path.join(dir, 'keys', 'audit.key'))).toBe(false);
  });

  it('refuses to stamp with a new key once rows are keyed: the write fails clearly, no key file is made', async () => {
    const before = await t.auditCount();
    const keyless = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-keyless-'));
    const previous = currentAuditChainKey();
    setCurrentAuditChainKey(new AuditChainKey({ dataDir: keyless })); // a process whose key file was lost
    try {
      await expect(
        t.db.transaction().execute(async (trx) => {
          await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'without-key' });
        }),
      ).rejects.toThrow(/audit chain key is missing.*would fork the chain/s);
      await expect(writeAudit(t.db, ACTOR, { action: 'user.update', entityId: 'without-key-alone' })).rejects.toThrow(
        /audit chain key is missing/,
      );
      expect(fs.existsSync(path.join(keyless, 'keys', 'audit.key'))).toBe(false);
    } finally {
      setCurrentAuditChainKey(previous);
      fs.rmSync(keyless, { recursive: true, force: true });
    }
    expect(await t.auditCount()).toBe(before); // nothing written unrecorded, nothing stamped the old way
    expect((await verifyAudit()).code).toBe(0);
  });

  // A process of its own over the same database: PostgreSQL only (the embedded one is this app's alone).
  if (kind === 'postgres')
    it('a server without the key does not start once rows are keyed, and says which key to put back', async () => {
      const keyless = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-keyless-start-'));
      try {
        const start = startServerProcess({ DATABASE_URL: t.url!, AUDIT_CHAIN_KEY: '', DATA_DIR: keyless });
        await expect(start).rejects.toThrow(/exited with 1:[\s\S]*audit chain key is missing[\s\S]*AUDIT_CHAIN_KEY/);
        expect(fs.existsSync(path.join(keyless, 'keys', 'audit.key'))).toBe(false);
      } finally {
        fs.rmSync(keyless, { recursive: true, force: true });
      }
    }, 90_000);

  it('takes a checkpoint file of 200,000 lines (no spread of them into one call)', async () => {
    const rows = await t.db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq').execute();
    const key = Buffer.from(TEST_AUDIT_CHAIN_KEY, 'base64');
    const checkpoints = Array.from({ length: 200_000 }, (_, i) => {
      const r = rows[i % rows.length]!;
      return {
        seq: Number(r.seq),
        hash: r.hash!,
        at: new Date().toISOString(),
        keyed_after: 0,
        key: keyFingerprint(key),
        pid: 1,
      };
    });
    expect(await verifyAuditChain(t.db, { key, checkpoints })).toMatchObject({
      status: 'intact',
      verified: rows.length,
      broken: null,
    });
  });
});

/**
 * Issue 20 §7, review: the rows of before the switch-over are checked with their canonical text rebuilt in Node from
 * the columns, never with the database's `audit_log_canonical`, which whoever edits the database can replace to hide
 * an edit. A database with realistic old rows (unicode, control characters, nulls, jsonb, timestamps with
 * microseconds) is migrated onto the chain, then keyed rows follow; verify-audit is run on it as an operator does.
 */
describe.each(dbKinds())('old (unkeyed) audit rows checked in Node on %s', (kind) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-legacy-'));
  let handle: DbHandle;
  let url: string | undefined;
  let drop = async () => {};
  const open = () =>
    openDb(url ? { databaseUrl: url, dataDir: 'memory', poolSize: 2 } : { dataDir: path.join(dir, 'data') });
  const env = () => ({
    ...(url ? { DATABASE_URL: url } : {}),
    DATA_DIR: url ? dir : path.join(dir, 'data'),
    AUDIT_CHAIN_KEY: TEST_AUDIT_CHAIN_KEY,
    LOG_LEVEL: 'silent',
  });
  /** verify-audit on this database; the embedded one is closed while the command has it, as the server would be. */
  const verifyAudit = async () => {
    const lines: string[] = [];
    if (!url) await handle.close();
    try {
      const code = await runCli(['verify-audit'], env(), (l) => void lines.push(l));
      return { code, output: lines.join('\n') };
    } finally {
      if (!url) handle = await open();
    }
  };
  const OLD_ROWS = [
    {
      at: '2026-03-01 09:15:42.123456+05',
      actor_id: '33333333-3333-4333-8333-333333333333',
      actor_name: 'Ёлка «Ель» 🎄 "quoted" back\\slash',
      actor_role: 'admin',
      action: 'user.update',
      entity_type: 'user',
      entity_id: 'u-1',
      // jsonb as an operator's tool would have sent it: spacing, key order, number forms and escapes it normalises
      before:
        '{"tags":["a","ü","日本"],"name":"Старое имя","n":1.50,"e":1e2,"big":123456789012345678901234567890,"ok":true}',
      after:
        '{"name": "Новое\\nимя\\t\\"x\\"", "nested": {"z": null, "a": [1, 2.5e3, -0.001]}, "ctl": "\\u0001\\u001f\\u00e9"}',
      ip: '203.0.113.5',
    },
    {
      at: '1999-12-31 23:59:59.999999+00',
      actor_id: null,
      actor_name: null,
      actor_role: null,
      action: 'auth.login_failed',
      entity_type: null,
      entity_id: null,
      before: null,
      after: null,
      ip: null,
    },
    {
      at: '2026-07-04 00:00:00+00',
      actor_id: null,
      actor_name: 'line1\r\nline2\u0007 \u2028 tab\there',
      actor_role: 'system',
      action: 'deposit.create',
      entity_type: 'deposit',
      entity_id: '42',
      before: '{}',
      after: '{"amount": "1000.00", "key with \\"quotes\\"": "value \\\\ backslash", "emoji": "🙂", "empty": ""}',
      ip: '::1',
    },
    {
      at: null, // now(): whatever microseconds the clock gives
      actor_id: null,
      actor_name: 'now',
      actor_role: null,
      action: 'user.create',
      entity_type: null,
      entity_id: 'x',
      before: '[1, "two", null]',
      after: '"a json string"',
      ip: null,
    },
  ];

  beforeAll(async () => {
    if (kind === 'pglite') handle = await open();
    else {
      const name = `brokerage_legacy_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const u = new URL(process.env.TEST_DATABASE_URL!);
      u.pathname = `/${name}`;
      url = u.toString();
      handle = await open();
      drop = async () => {
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      };
    }
    const names = Object.keys(MIGRATIONS);
    const before = names[names.indexOf('2026-11-25T0018-audit-chain') - 1]!;
    const migrator = () => new Migrator({ db: handle.db, provider: { getMigrations: async () => MIGRATIONS } });
    expect((await migrator().migrateTo(before)).error).toBeUndefined();
    for (const r of OLD_ROWS)
      await sql`insert into audit_log (at, actor_id, actor_name, actor_role, action, entity_type, entity_id, before, after, ip)
        values (coalesce(${r.at}::timestamptz, now()), ${r.actor_id}::uuid, ${r.actor_name}, ${r.actor_role}, ${r.action},
          ${r.entity_type}, ${r.entity_id}, ${r.before}::jsonb, ${r.after}::jsonb, ${r.ip})`.execute(handle.db);
    expect((await migrator().migrateToLatest()).error).toBeUndefined();
    // Keyed rows after the old ones, and a checkpoint of the head outside the database, as a server writes them.
    await handle.db.transaction().execute(async (trx) => {
      await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'keyed-after-old', after: { ü: 'ß' } });
      await writeAudit(trx, ACTOR, { action: 'user.update', entityId: 'keyed-after-old-2' });
    });
    const writer = new AuditCheckpointWriter({
      db: handle.db,
      file: checkpointFile(env().DATA_DIR),
      key: () => new AuditChainKey({ key: TEST_AUDIT_CHAIN_KEY, dataDir: dir }),
      log: { info: () => undefined, error: (obj) => expect.fail(JSON.stringify(obj)) },
    });
    expect(await writer.writeNow()).toMatchObject({ seq: OLD_ROWS.length + 2, keyed_after: OLD_ROWS.length });
  }, 120_000);
  afterAll(async () => {
    await handle.close();
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("rebuilds each old row's canonical text exactly as the migration's function makes it", async () => {
    const rows = await sql<ContentRow & { seq: string; prev_hash: string | null; canon: string }>`
      select ${sql.raw(CONTENT_COLUMNS)}, a.seq::text as seq, a.prev_hash, audit_log_canonical(a) as canon
      from audit_log a where a.seq <= ${OLD_ROWS.length} order by a.seq`.execute(handle.db);
    expect(rows.rows).toHaveLength(OLD_ROWS.length);
    expect(rows.rows[0]!.at_utc).toBe('2026-03-01T04:15:42.123456Z');
    expect(rows.rows[2]!.at_utc).toBe('2026-07-04T00:00:00.000000Z');
    for (const r of rows.rows) expect(legacyCanonical(r.seq, r.prev_hash, r)).toBe(r.canon);

    const run = await verifyAudit();
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`Audit chain intact: verified ${OLD_ROWS.length + 2} rows.`);
  });

  it('names an old row edited by hand even when audit_log_canonical is replaced to hide the edit', async () => {
    const target = await handle.db
      .selectFrom('audit_log')
      .select('id')
      .where('seq', '=', '3')
      .executeTakeFirstOrThrow();
    await asTamperer(handle.db, async (trx) => {
      await sql`create table canon_saved as select id, audit_log_canonical(a) as canon from audit_log a`.execute(trx);
      await sql`update audit_log set after = '{"amount": "1000000.00"}'::jsonb where seq = 3`.execute(trx);
      await sql`
        create or replace function audit_log_canonical(r audit_log) returns text language sql stable as $$
          select canon from canon_saved where id = r.id
        $$`.execute(trx);
      // By the database's own measure every old row still matches its hash.
      const mismatched = await sql<{ n: string }>`
        select count(*)::text as n from audit_log a
        where hash <> encode(sha256(convert_to(audit_log_canonical(a), 'UTF8')), 'hex') and seq <= 3`.execute(trx);
      expect(mismatched.rows[0]!.n).toBe('0');
    });
    const run = await verifyAudit();
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`Audit chain broken at row ${target.id} (chain position 3)`);
    expect(run.output).toContain('up to chain position 2');
  });
});
