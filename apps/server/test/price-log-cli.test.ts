import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPrivateKey, sign } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headSignatureInput } from '../src/modules/price-log/hash.js';
import { dbKinds, runAdminCommand } from './helpers.js';
import { buildScenario, clientProof, newEd25519Pem, type Scenario } from './price-log-scenario.js';

/**
 * Issue 30 §4: `npm run admin -- verify-price-log` recomputes the log from the stored ticks and checks every published
 * head; a tick edited in SQL is named with its leaf index and the trades whose proofs used it; the result is audited.
 * Run as an operator does (runAdminCommand: beside the server on PostgreSQL, the server stopped on the embedded one).
 */
describe.each(dbKinds())('verify-price-log on %s', (kind) => {
  let s: Scenario;
  let dataDir: string | undefined;
  /** How many leaves the whole log's check covered (the first test). */
  let allLeaves = 0;

  beforeAll(async () => {
    dataDir = kind === 'pglite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'price-log-cli-')) : undefined;
    s = await buildScenario(kind, dataDir ? { dataDir } : {});
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(args: string[], env: Record<string, string> = { PRICE_LOG_KEY: s.keyPem }) {
    const result = await runAdminCommand(s.t, ['verify-price-log', ...args], env);
    s.t = result.t;
    return result;
  }

  async function lastAudit() {
    const rows = await s.t.auditRows('price_log.verify');
    const after = rows.at(-1)!.after;
    return (typeof after === 'string' ? JSON.parse(after) : after) as Record<string, unknown>;
  }

  it('reports an intact log with exit 0, checks every head with the server key, and audits the run', async () => {
    const before = await s.t.auditCount('price_log.verify');
    const heads = Number(
      (
        await s.t.db
          .selectFrom('price_log_heads')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(heads).toBeGreaterThan(5);
    const { code, output } = await run([]);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^Price log intact: checked \d+ leaves/m);
    expect(output).not.toContain('was not at hand');
    allLeaves = Number(/checked (\d+) leaves/.exec(output)![1]);
    expect(await s.t.auditCount('price_log.verify')).toBe(before + 1);
    expect(await lastAudit()).toMatchObject({ ok: true, heads_checked: heads, server_key: true, trades: [] });

    // Without the server's key it still checks, with the stored public keys, and says so.
    const bare = await run([], {});
    expect(bare.code, bare.output).toBe(0);
    expect(bare.output).toContain("The server's key (PRICE_LOG_KEY or its key file) was not at hand");
  });

  it('checks a period only, and refuses a period it cannot read', async () => {
    const some = await run(['--from', '2026-11-23T10:00:20Z', '--to', '2026-11-23T10:00:30Z']);
    expect(some.code, some.output).toBe(0);
    const part = Number(/checked (\d+) leaves/.exec(some.output)![1]);
    expect(part).toBeGreaterThan(0);
    expect(part).toBeLessThan(allLeaves);
    const bad = await run(['--from', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--from needs an ISO 8601 date');
  });

  it('names a tick changed in SQL by its leaf index and lists the trades whose proofs used it (exit 1)', async () => {
    const close = (await clientProof(s, s.trades.won)).ticks.close!;
    const other = (await clientProof(s, s.trades.tie)).ticks.close!;
    await sql`update price_ticks set price = price + 0.00001 where log_index = ${close.index}`.execute(s.t.db);
    try {
      const { code, output } = await run([]);
      expect(code, output).toBe(1);
      const at = new Date(close.time_ms).toISOString();
      expect(output).toContain(`Leaf ${close.index} (EURUSD tick #${close.seq} at ${at}`);
      expect(output).toContain('it was changed after it was logged');
      // The won call and the lost put both closed on it; nothing else did.
      const [a, b] = [s.trades.won, s.trades.lost].sort((x, y) => x - y);
      expect(output).toContain(`Trades whose proof used it: ${a}, ${b}.`);
      expect(output).not.toContain(`Leaf ${other.index} `);
      expect(output).toMatch(/^Price log does NOT verify/m);
      expect(await lastAudit()).toMatchObject({ ok: false, changed_leaves: [close.index], trades: [a, b] });
    } finally {
      await sql`update price_ticks set price = ${close.price}::numeric where log_index = ${close.index}`.execute(
        s.t.db,
      );
    }
    expect((await run([])).code).toBe(0);
  });

  it('finds a stored subtree hash that does not match its children, and a head signed by another key', async () => {
    const node = await s.t.db
      .selectFrom('price_log_nodes')
      .select(['idx', 'hash'])
      .where('level', '=', 1)
      .where('idx', '=', '3')
      .executeTakeFirstOrThrow();
    await sql`update price_log_nodes set hash = sha256(hash) where level = 1 and idx = 3`.execute(s.t.db);
    try {
      const { code, output } = await run([]);
      expect(code, output).toBe(1);
      expect(output).toContain('Subtree hash level 1 index 3 does not match its two children.');
    } finally {
      await sql`update price_log_nodes set hash = ${node.hash} where level = 1 and idx = 3`.execute(s.t.db);
    }

    const head = await s.t.db
      .selectFrom('price_log_heads')
      .selectAll()
      .orderBy('tree_size')
      .offset(2)
      .limit(1)
      .executeTakeFirstOrThrow();
    const forged = sign(
      null,
      headSignatureInput({ timeMs: Number(head.time_ms), treeSize: Number(head.tree_size), root: head.root }),
      createPrivateKey(newEd25519Pem()),
    );
    await sql`update price_log_heads set signature = ${forged} where tree_size = ${head.tree_size}`.execute(s.t.db);
    try {
      const { code, output } = await run([]);
      expect(code, output).toBe(1);
      expect(output).toContain(`Head of size ${head.tree_size} (`);
      expect(output).toContain('its signature does not verify');
      expect(await lastAudit()).toMatchObject({
        ok: false,
        bad_heads: [{ tree_size: Number(head.tree_size), reason: 'signature' }],
      });
    } finally {
      await sql`update price_log_heads set signature = ${head.signature} where tree_size = ${head.tree_size}`.execute(
        s.t.db,
      );
    }
    expect((await run([])).code).toBe(0);
  });
});
