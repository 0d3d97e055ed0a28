import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Money has one door (decisions.md D3, issue 29 §2): only the ledger module writes a trading balance or a ledger entry.
 * Every other module moves money by calling it (postEntry, or the ledger's statement parts that place-trade and
 * settlement compose into their one statement). This scan of apps/server/src fails when a file outside
 * modules/ledger writes `balance_cents` of trading_accounts or inserts, updates or deletes ledger_entries, whether
 * through Kysely's builder or in raw SQL. The migrations are exempt: they define the tables.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');
const LEDGER = path.join(SRC, 'modules', 'ledger');
const MIGRATIONS = path.join(SRC, 'platform', 'db', 'migrations');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The writes of money in one file's text, as 'line: what'. */
function moneyWrites(text: string): string[] {
  const found: string[] = [];
  const add = (index: number, what: string) => found.push(`${lineOf(text, index)}: ${what}`);

  // Kysely: a chain from updateTable('trading_accounts') (any alias) to its execution that sets balance_cents.
  for (const m of text.matchAll(/\.updateTable\(\s*['"`]trading_accounts(?:\s+as\s+\w+)?['"`]\s*\)/g)) {
    const rest = text.slice(m.index);
    const end = rest.search(/\.execute\w*\(|\.compile\(|;/);
    if (/balance_cents/.test(end < 0 ? rest : rest.slice(0, end)))
      add(m.index, "updateTable('trading_accounts') … balance_cents");
  }
  for (const m of text.matchAll(/\.(insertInto|updateTable|deleteFrom|mergeInto)\(\s*['"`]ledger_entries\b/g))
    add(m.index, `${m[1]}('ledger_entries')`);

  // Raw SQL: `update trading_accounts … set … balance_cents` (up to the statement's where/from/returning or the end of
  // the template), and any insert, update, delete or merge of ledger_entries.
  for (const m of text.matchAll(/\bupdate\s+(?:only\s+)?trading_accounts\b/gi)) {
    const rest = text.slice(m.index + m[0].length);
    const end = rest.search(/\bwhere\b|\breturning\b|`/i);
    if (/\bbalance_cents\b/i.test(end < 0 ? rest : rest.slice(0, end)))
      add(m.index, 'update trading_accounts set balance_cents');
  }
  for (const m of text.matchAll(/\b(insert\s+into|update|delete\s+from|merge\s+into)\s+(?:only\s+)?ledger_entries\b/gi))
    add(m.index, `${m[1]!.replace(/\s+/g, ' ').toLowerCase()} ledger_entries`);
  return found;
}

describe('money has one door: the ledger module', () => {
  it('no file outside modules/ledger writes a balance or a ledger entry', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.startsWith(LEDGER + path.sep) && !file.startsWith(MIGRATIONS + path.sep))
      .flatMap((file) => moneyWrites(readFileSync(file, 'utf8')).map((w) => `${path.relative(SRC, file)}:${w}`));
    expect(offenders).toEqual([]);
  });

  it('the scan sees the writes the ledger itself makes (so it cannot pass by matching nothing)', () => {
    const writes = sourceFiles(LEDGER).flatMap((file) => moneyWrites(readFileSync(file, 'utf8')));
    expect(writes.some((w) => w.includes("updateTable('trading_accounts')"))).toBe(true);
    expect(writes.some((w) => w.includes("insertInto('ledger_entries')"))).toBe(true);
    expect(writes.some((w) => w.includes('update trading_accounts set balance_cents'))).toBe(true);
    expect(writes.some((w) => w.includes('insert into ledger_entries'))).toBe(true);
  });

  it('recognises each form of a write, and not a read or another column', () => {
    const writes = (text: string) => moneyWrites(text).map((w) => w.replace(/^\d+: /, ''));
    expect(
      writes(`trx.updateTable('trading_accounts').set({ balance_cents: 0 }).where('id', '=', 1).execute()`),
    ).toEqual(["updateTable('trading_accounts') … balance_cents"]);
    expect(writes(`trx.updateTable('trading_accounts as a').set({ 'a.balance_cents': 0 }).execute()`)).toHaveLength(1);
    expect(writes(`trx.updateTable('trading_accounts').set({ status: 'blocked' }).execute(); x.balance_cents`)).toEqual(
      [],
    );
    expect(writes(`trx.insertInto('ledger_entries').values(v)`)).toEqual(["insertInto('ledger_entries')"]);
    expect(writes('sql`UPDATE trading_accounts a\n  SET balance_cents = 0 WHERE id = 1`')).toEqual([
      'update trading_accounts set balance_cents',
    ]);
    expect(writes('sql`update trading_accounts set live_seq = live_seq + 1 where balance_cents > 0`')).toEqual([]);
    expect(writes('sql`insert into ledger_entries (account_id) values (1)`')).toEqual(['insert into ledger_entries']);
    expect(writes('sql`delete from ledger_entries`')).toEqual(['delete from ledger_entries']);
    expect(writes(`db.selectFrom('ledger_entries').select('balance_after_cents')`)).toEqual([]);
    expect(writes('sql`select balance_cents from trading_accounts for update`')).toEqual([]);
  });
});
