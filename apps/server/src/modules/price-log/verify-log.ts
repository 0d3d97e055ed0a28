import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import { headSignatureInput, LEAF_HASH_SQL_TEXT } from './hash.js';
import { priceLogKeyId, type PriceLogPublicKey } from './keys.js';
import { coalescingNodeSource, proofTickIndexes } from './proof.js';
import { dbNodeSource, rootAt } from './tree.js';

/**
 * `npm run admin -- verify-price-log` (issue 30 §4, decisions.md D27): the price log recomputed from what is stored,
 * in chunks by leaf index (nothing is loaded whole, whatever the log's size):
 *
 * 1. every stored tick's leaf hash, recomputed in SQL from the tick (LEAF_HASH_SQL_TEXT, the expression the feed
 *    stores it with), against its leaf (price_log_nodes level 0); every leaf below the log's size must exist;
 * 2. every stored subtree hash (levels ≥ 1, up to the hashed size) against SHA-256(0x01 ‖ its two stored children), so
 *    the stored tree is one tree over the stored leaves and a change shows at the lowest level it was made;
 * 3. every published head's root against the root of the stored tree at its size, and its Ed25519 signature over
 *    RFC 6962's tree head input, with the server's own key when the head names it, else the stored public key of
 *    its key_id (and said so).
 *
 * A changed tick is named with its leaf index, symbol and time, and with every trade whose proof used it (its strike,
 * strike_next, close or close_next: the same selection as proof.ts).
 */

/** Leaf indexes / node indexes per query. */
const CHUNK = 50_000;
/** Heads per query (their roots' stored subtrees in one load). */
const HEAD_CHUNK = 500;
/** Findings kept per kind (the counts are always complete). */
const KEEP = 1000;

export interface BadLeaf {
  index: number;
  /** 'changed': the tick does not hash to its leaf; 'missing': no leaf stored for an index below the size. */
  reason: 'changed' | 'missing';
  /** The tick as stored now (null when it was pruned). */
  symbol: string | null;
  seq: number | null;
  at: string | null;
  price: string | null;
  /** Trades whose proof includes this tick. */
  trades: number[];
}

export interface BadNode {
  level: number;
  idx: number;
  reason: 'mismatch' | 'missing';
}

export interface BadHead {
  treeSize: number;
  timeMs: number;
  keyId: string;
  reason: 'root' | 'signature' | 'unknown_key' | 'not_hashed';
}

export interface VerifyLogResult {
  ok: boolean;
  size: number;
  hashedSize: number;
  /** The leaf indexes checked, [from, to) (all of the log without a period). */
  range: { from: number; to: number };
  leavesChecked: number;
  nodesChecked: number;
  headsChecked: number;
  badLeaves: { count: number; items: BadLeaf[] };
  badNodes: { count: number; items: BadNode[] };
  badHeads: { count: number; items: BadHead[] };
  /** Trades whose proof used a changed tick (all of them, ascending). */
  trades: number[];
  /** Key ids that signed heads but are not the key given as the server's (verified with their stored public key). */
  otherKeys: string[];
  /** Whether the server's own key was at hand to check the signatures with. */
  serverKey: boolean;
}

export interface VerifyLogOptions {
  /** Only the ticks stored with a time in [from, to] and the heads signed then (ISO instants). */
  from?: Date;
  to?: Date;
  /** The server's public key (PRICE_LOG_KEY or the key file); without it, heads are checked with the stored keys. */
  serverKey?: PriceLogPublicKey | null;
}

const keep = <T>(list: { count: number; items: T[] }, item: T) => {
  list.count += 1;
  if (list.items.length < KEEP) list.items.push(item);
};

function ed25519Key(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

export async function verifyPriceLog(db: Db, options: VerifyLogOptions = {}): Promise<VerifyLogResult> {
  const state = await db.selectFrom('price_log_state').select(['size', 'hashed_size']).executeTakeFirst();
  const size = Number(state?.size ?? 0);
  const hashedSize = Number(state?.hashed_size ?? 0);

  // The period as leaf indexes: ticks are appended in time order per symbol, nearly so across symbols, so the span
  // from the first to the last index of a tick of the period holds every tick of it.
  let from = 0;
  let to = size;
  const period = options.from !== undefined || options.to !== undefined;
  if (period) {
    const span = await db
      .selectFrom('price_ticks')
      .select((eb) => [eb.fn.min('log_index').as('lo'), eb.fn.max('log_index').as('hi')])
      .$if(options.from !== undefined, (q) => q.where('at', '>=', options.from!))
      .$if(options.to !== undefined, (q) => q.where('at', '<=', options.to!))
      .executeTakeFirst();
    from = span?.lo === null || span?.lo === undefined ? 0 : Number(span.lo);
    to = span?.hi === null || span?.hi === undefined ? 0 : Math.min(size, Number(span.hi) + 1);
  }

  const result: VerifyLogResult = {
    ok: true,
    size,
    hashedSize,
    range: { from, to },
    leavesChecked: 0,
    nodesChecked: 0,
    headsChecked: 0,
    badLeaves: { count: 0, items: [] },
    badNodes: { count: 0, items: [] },
    badHeads: { count: 0, items: [] },
    trades: [],
    otherKeys: [],
    serverKey: Boolean(options.serverKey),
  };

  // 1. The leaves: each index of the range, its leaf and its tick (if not pruned).
  for (let lo = from; lo < to; lo += CHUNK) {
    const hi = Math.min(to, lo + CHUNK);
    const { rows } = await sql<{
      idx: string;
      symbol: string | null;
      symbol_seq: string | null;
      at_ms: string | null;
      price: string | null;
      no_leaf: boolean;
    }>`
      select w.idx, p.symbol, p.symbol_seq, floor(extract(epoch from p.at) * 1000)::bigint as at_ms,
             p.price::text as price, n.hash is null as no_leaf
      from generate_series(${lo}::bigint, ${hi - 1}::bigint) as w(idx)
      left join price_log_nodes n on n.level = 0 and n.idx = w.idx
      left join price_ticks p on p.log_index = w.idx
      where n.hash is null or (p.log_index is not null and n.hash <> ${sql.raw(LEAF_HASH_SQL_TEXT)})
      order by w.idx`.execute(db);
    result.leavesChecked += hi - lo;
    for (const r of rows)
      keep(result.badLeaves, {
        index: Number(r.idx),
        reason: r.no_leaf ? 'missing' : 'changed',
        symbol: r.symbol,
        seq: r.symbol_seq === null ? null : Number(r.symbol_seq),
        at: r.at_ms === null ? null : new Date(Number(r.at_ms)).toISOString(),
        price: r.price,
        trades: [],
      });
  }
  const unlogged = await db
    .selectFrom('price_ticks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('log_index', 'is', null)
    .executeTakeFirstOrThrow();

  // 2. The stored subtrees above the leaves, level by level, each against its two stored children.
  for (let level = 1, width = 2; width <= hashedSize; level += 1, width *= 2) {
    const first = Math.floor(from / width);
    const end = Math.min(Math.floor(hashedSize / width), Math.ceil(to / width));
    for (let lo = first; lo < end; lo += CHUNK) {
      const hi = Math.min(end, lo + CHUNK);
      const { rows } = await sql<{ idx: string; missing: boolean; child_missing: boolean }>`
        select w.idx, p.hash is null as missing, (l.hash is null or r.hash is null) as child_missing
        from generate_series(${lo}::bigint, ${hi - 1}::bigint) as w(idx)
        left join price_log_nodes p on p.level = ${level} and p.idx = w.idx
        left join price_log_nodes l on l.level = ${level - 1} and l.idx = 2 * w.idx
        left join price_log_nodes r on r.level = ${level - 1} and r.idx = 2 * w.idx + 1
        where p.hash is null or l.hash is null or r.hash is null
           or p.hash <> sha256(decode('01', 'hex') || l.hash || r.hash)
        order by w.idx`.execute(db);
      result.nodesChecked += hi - lo;
      // A missing child is its own finding one level down (or a missing leaf): a parent is judged on two children.
      for (const r of rows)
        if (r.missing) keep(result.badNodes, { level, idx: Number(r.idx), reason: 'missing' });
        else if (!r.child_missing) keep(result.badNodes, { level, idx: Number(r.idx), reason: 'mismatch' });
    }
  }

  // 3. The heads: root from the stored tree (checked above), signature under the server's key or the stored one.
  const keys = new Map<string, KeyObject | null>();
  if (options.serverKey) keys.set(options.serverKey.keyId, ed25519Key(options.serverKey.raw));
  const other = new Set<string>();
  const keyOf = async (keyId: string): Promise<KeyObject | null> => {
    if (!keys.has(keyId)) {
      const row = await db
        .selectFrom('price_log_keys')
        .select('public_key')
        .where('key_id', '=', keyId)
        .executeTakeFirst();
      // A stored key that is not what its id says it is verifies nothing.
      keys.set(
        keyId,
        row && priceLogKeyId(Buffer.from(row.public_key)) === keyId ? ed25519Key(Buffer.from(row.public_key)) : null,
      );
    }
    if (options.serverKey && keyId !== options.serverKey.keyId) other.add(keyId);
    return keys.get(keyId)!;
  };
  let after = 0;
  for (;;) {
    const heads = await db
      .selectFrom('price_log_heads')
      .select(['tree_size', 'time_ms', 'root', 'signature', 'key_id'])
      .where('tree_size', '>', String(after))
      .$if(options.from !== undefined, (q) => q.where('time_ms', '>=', String(options.from!.getTime())))
      .$if(options.to !== undefined, (q) => q.where('time_ms', '<=', String(options.to!.getTime())))
      .orderBy('tree_size')
      .limit(HEAD_CHUNK)
      .execute();
    if (heads.length === 0) break;
    after = Number(heads[heads.length - 1]!.tree_size);
    const src = coalescingNodeSource(dbNodeSource(db));
    const roots = await Promise.all(
      heads.map((h) =>
        Number(h.tree_size) > hashedSize ? Promise.resolve(null) : rootAt(src, Number(h.tree_size)).catch(() => null),
      ),
    );
    for (const [i, h] of heads.entries()) {
      result.headsChecked += 1;
      const treeSize = Number(h.tree_size);
      const timeMs = Number(h.time_ms);
      const bad = (reason: BadHead['reason']) => keep(result.badHeads, { treeSize, timeMs, keyId: h.key_id, reason });
      const root = roots[i];
      if (treeSize > hashedSize || !root) {
        bad('not_hashed');
        continue;
      }
      if (!root.equals(Buffer.from(h.root))) bad('root');
      const key = await keyOf(h.key_id);
      if (!key) bad('unknown_key');
      else if (
        !verifySignature(
          null,
          headSignatureInput({ timeMs, treeSize, root: Buffer.from(h.root) }),
          key,
          Buffer.from(h.signature),
        )
      )
        bad('signature');
    }
  }
  result.otherKeys = [...other].sort();

  // The trades whose proofs used a changed tick: those of its symbol opened or expiring between its neighbours.
  const all = new Set<number>();
  for (const leaf of result.badLeaves.items) {
    if (leaf.symbol === null || leaf.seq === null) continue;
    const { rows } = await sql<{ id: string }>`
      with nb as (
        select (select at from price_ticks where symbol = ${leaf.symbol} and symbol_seq = ${leaf.seq - 1}) as prev_at,
               (select at from price_ticks where symbol = ${leaf.symbol} and symbol_seq = ${leaf.seq + 1}) as next_at,
               (select at from price_ticks where log_index = ${leaf.index}) as at
      )
      select t.id from trades t cross join nb
      where t.asset = ${leaf.symbol} and t.opened_log_size is not null and t.status <> 'active'
        and ((t.strike_at >= coalesce(nb.prev_at, nb.at) and t.strike_at <= coalesce(nb.next_at, 'infinity'))
          or (t.expires_at >= coalesce(nb.prev_at, '-infinity') and t.expires_at <= coalesce(nb.next_at, 'infinity')))
      order by t.id`.execute(db);
    const ids = rows.map((r) => Number(r.id));
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const t of await proofTickIndexes(db, ids.slice(i, i + CHUNK)))
        if (t.indexes.includes(leaf.index)) leaf.trades.push(t.id);
    }
    leaf.trades.sort((a, b) => a - b);
    leaf.trades.forEach((id) => all.add(id));
  }
  result.trades = [...all].sort((a, b) => a - b);
  if (Number(unlogged.n) > 0) {
    // Ticks outside the log can be in no proof; D27 stores none (each tick gets its leaf in the statement storing it).
    keep(result.badLeaves, {
      index: -1,
      reason: 'missing',
      symbol: null,
      seq: null,
      at: null,
      price: `${unlogged.n} tick(s) without a leaf index`,
      trades: [],
    });
  }
  result.ok = result.badLeaves.count === 0 && result.badNodes.count === 0 && result.badHeads.count === 0;
  return result;
}

/** The report's lines, for the command line (English, like the other admin commands). */
export function verifyLogReport(r: VerifyLogResult): string[] {
  const lines: string[] = [];
  for (const leaf of r.badLeaves.items) {
    if (leaf.index < 0) {
      lines.push(`Ticks not in the log: ${leaf.price}.`);
      continue;
    }
    const tick =
      leaf.symbol === null
        ? 'its tick is pruned'
        : `${leaf.symbol} tick #${leaf.seq} at ${leaf.at}, price ${leaf.price}`;
    lines.push(
      leaf.reason === 'changed'
        ? `Leaf ${leaf.index} (${tick}): the stored tick does not hash to its leaf: it was changed after it was logged.`
        : `Leaf ${leaf.index} (${tick}): no leaf hash is stored for it.`,
    );
    if (leaf.trades.length > 0) lines.push(`  Trades whose proof used it: ${leaf.trades.join(', ')}.`);
  }
  for (const n of r.badNodes.items)
    lines.push(
      n.reason === 'missing'
        ? `Subtree hash level ${n.level} index ${n.idx} is missing.`
        : `Subtree hash level ${n.level} index ${n.idx} does not match its two children.`,
    );
  const why: Record<BadHead['reason'], string> = {
    root: 'its root is not the root of the stored log at that size',
    signature: 'its signature does not verify',
    unknown_key: 'the key that signed it is not stored',
    not_hashed: 'the log is not hashed up to its size',
  };
  for (const h of r.badHeads.items)
    lines.push(`Head of size ${h.treeSize} (${new Date(h.timeMs).toISOString()}, key ${h.keyId}): ${why[h.reason]}.`);
  const more = (list: { count: number; items: unknown[] }, what: string) => {
    if (list.count > list.items.length) lines.push(`… and ${list.count - list.items.length} more ${what}.`);
  };
  more(r.badLeaves, 'changed or missing leaves');
  more(r.badNodes, 'subtree hashes');
  more(r.badHeads, 'heads');
  if (r.otherKeys.length > 0)
    lines.push(
      `Heads signed by key(s) other than this server's (checked with their stored public key): ${r.otherKeys.join(', ')}.`,
    );
  if (!r.serverKey)
    lines.push(
      "The server's key (PRICE_LOG_KEY or its key file) was not at hand: heads were checked with the stored keys.",
    );
  const summary =
    `${r.leavesChecked} leaves (indexes ${r.range.from}–${Math.max(r.range.from, r.range.to - 1)} of ${r.size}), ` +
    `${r.nodesChecked} subtree hashes, ${r.headsChecked} signed heads`;
  lines.push(
    r.ok
      ? `Price log intact: checked ${summary}.`
      : `Price log does NOT verify: checked ${summary}; ${r.badLeaves.count} leaf, ${r.badNodes.count} subtree and ` +
          `${r.badHeads.count} head finding(s)` +
          (r.trades.length > 0 ? `; trades whose proofs used a changed tick: ${r.trades.join(', ')}.` : '.'),
  );
  return lines;
}
