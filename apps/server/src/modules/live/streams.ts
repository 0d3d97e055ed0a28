import { LIVE_REPLAY_MAX, centsToDollars } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';
import type { TradeRow } from '../../platform/db/types.js';
import type { LiveStreamReader, StreamFrame } from '../../platform/ws/streams.js';
import { toNotification } from '../notifications/service.js';
import { toClientTrade } from '../trading/mappers.js';

/**
 * What the live sockets send, read from the database (issue 21 §7; docs/architecture.md "Live updates"). The socket
 * gateway keeps, per socket and stream, the sequence it has sent up to, and asks here for what came after it: on a
 * bus hint, on `resume`, after the bus reconnected and every LIVE_RESYNC_MS. Each read is one statement (one
 * snapshot) for every stream asked about at once.
 */

type AccountRow = TradeRow & {
  n: string | number;
  acc_id: string | number;
  acc_balance: string | number;
  acc_seq: string | number;
};

/** The rows of each want, by its position (the statements number them from 1 `with ordinality`). */
function byOrdinal<R extends { n: string | number }>(rows: readonly R[]): Map<number, R[]> {
  const byWant = new Map<number, R[]>();
  for (const row of rows) {
    const n = Number(row.n) - 1;
    const list = byWant.get(n);
    if (list) list.push(row);
    else byWant.set(n, [row]);
  }
  return byWant;
}

/** The trade as it was when placed (a replay tells of the opening before the result, as the live events did). */
function asOpened(trade: TradeRow): TradeRow {
  return { ...trade, status: 'active', close_price: null, close_at: null, profit_cents: null, settled_at: null };
}

/**
 * An account's replay after `since`: its trades whose latest change is later (by `trades_account_live`), told as
 * trade.opened (placed after `since`) and trade.settled (closed after it, any result, voids included) in the order of
 * their sequences, then balance.changed with the balance of the same snapshot. Every frame but the last carries
 * `since` (a socket lost half-way resumes from there again); the balance carries the account's sequence.
 */
function accountRead(since: number, seq: number, accountId: number, balanceCents: number, rows: TradeRow[]) {
  if (since > seq || rows.length > LIVE_REPLAY_MAX) return { seq, frames: [], refetch: true };
  if (since === seq) return { seq, frames: [], refetch: false };
  const events: { stamp: number; id: number; frame: StreamFrame }[] = [];
  for (const trade of rows) {
    const id = Number(trade.id);
    const opened = Number(trade.opened_seq);
    if (opened > since)
      events.push({
        stamp: opened,
        id: id * 2,
        frame: { type: 'trade.opened', payload: { trade: toClientTrade(asOpened(trade)) }, seq: since },
      });
    if (trade.status !== 'active')
      events.push({
        stamp: Number(trade.live_seq),
        id: id * 2 + 1,
        frame: { type: 'trade.settled', payload: { trade: toClientTrade(trade) }, seq: since },
      });
  }
  events.sort((a, b) => a.stamp - b.stamp || a.id - b.id);
  const frames = events.map((e) => e.frame);
  frames.push({
    type: 'balance.changed',
    payload: { account_id: accountId, balance: centsToDollars(balanceCents) },
    seq,
  });
  return { seq, frames, refetch: false };
}

export function liveStreamReader(db: Db): LiveStreamReader {
  return {
    async heads(userId) {
      const { rows } = await sql<{
        id: string | number | null;
        seq: string | number | null;
        messages: string | number;
        notifications: string | number;
      }>`
        select a.id, a.live_seq as seq,
               (select coalesce(max(m.id), 0) from client_messages m where m.user_id = u.id) as messages,
               (select coalesce(max(x.id), 0) from notifications x where x.user_id = u.id) as notifications
        from (select ${userId}::uuid as id) u
        left join trading_accounts a on a.user_id = u.id`.execute(db);
      const row = rows[0]!;
      return {
        account: row.id === null ? null : { id: Number(row.id), seq: Number(row.seq) },
        messages: Number(row.messages),
        notifications: Number(row.notifications),
      };
    },

    async accounts(wants) {
      if (wants.length === 0) return [];
      const { rows } = await sql<AccountRow>`
        select w.n, a.id as acc_id, a.balance_cents as acc_balance, a.live_seq as acc_seq, t.*
        from unnest(${wants.map((w) => w.key)}::bigint[], ${wants.map((w) => w.since ?? -1)}::bigint[])
          with ordinality as w(account_id, since, n)
        join trading_accounts a on a.id = w.account_id
        left join lateral (
          select * from trades t
          where t.account_id = w.account_id and w.since >= 0 and t.live_seq > w.since
          order by t.live_seq, t.id
          limit ${LIVE_REPLAY_MAX + 1}
        ) t on true
        order by w.n, t.live_seq, t.id`.execute(db);
      const byWant = byOrdinal(rows);
      return wants.map((want, i) => {
        const mine = byWant.get(i);
        if (!mine) return null;
        const head = mine[0]!;
        const seq = Number(head.acc_seq);
        if (want.since === null) return { seq, frames: [], refetch: false };
        const trades = mine.filter((r) => r.id !== null);
        return accountRead(want.since, seq, Number(head.acc_id), Number(head.acc_balance), trades);
      });
    },

    async messages(wants) {
      if (wants.length === 0) return [];
      const { rows } = await sql<{ n: string | number; head: string | number; id: string | number | null }>`
        select w.n, (select coalesce(max(h.id), 0) from client_messages h where h.user_id = w.user_id) as head, m.id
        from unnest(${wants.map((w) => w.key)}::uuid[], ${wants.map((w) => w.since ?? -1)}::bigint[])
          with ordinality as w(user_id, since, n)
        left join lateral (
          select id from client_messages m
          where m.user_id = w.user_id and w.since >= 0 and m.id > w.since
          order by m.id limit ${LIVE_REPLAY_MAX + 1}
        ) m on true
        order by w.n, m.id`.execute(db);
      const byWant = byOrdinal(rows);
      return wants.map((want, i) => {
        const mine = byWant.get(i) ?? [];
        const head = Number(mine[0]?.head ?? 0);
        const ids = mine.filter((r) => r.id !== null).map((r) => Number(r.id));
        if (want.since === null) return { seq: head, frames: [], refetch: false };
        if (want.since > head || ids.length > LIVE_REPLAY_MAX) return { seq: head, frames: [], refetch: true };
        return {
          seq: Math.max(want.since, ...ids),
          frames: ids.map((id): StreamFrame => ({ type: 'message.new', payload: { id }, seq: id })),
          refetch: false,
        };
      });
    },

    async notifications(wants) {
      if (wants.length === 0) return [];
      const { rows } = await sql<Parameters<typeof toNotification>[0] & { n: string | number; head: string | number }>`
        select w.n, (select coalesce(max(h.id), 0) from notifications h where h.user_id = w.user_id) as head, x.*
        from unnest(${wants.map((w) => w.key)}::uuid[], ${wants.map((w) => w.since ?? -1)}::bigint[])
          with ordinality as w(user_id, since, n)
        left join lateral (
          select * from notifications x
          where x.user_id = w.user_id and w.since >= 0 and x.id > w.since
          order by x.id limit ${LIVE_REPLAY_MAX + 1}
        ) x on true
        order by w.n, x.id`.execute(db);
      const byWant = byOrdinal(rows);
      return wants.map((want, i) => {
        const mine = byWant.get(i) ?? [];
        const head = Number(mine[0]?.head ?? 0);
        const fresh = mine.filter((r) => r.id !== null);
        if (want.since === null) return { seq: head, frames: [], refetch: false };
        if (want.since > head || fresh.length > LIVE_REPLAY_MAX) return { seq: head, frames: [], refetch: true };
        const newest = fresh.at(-1);
        if (!newest) return { seq: want.since, frames: [], refetch: false };
        // One frame for what was missed, as the outbox sends a batch: the newest, how many, of which types.
        const frame: StreamFrame = {
          type: 'notification.new',
          payload: {
            notification: toNotification(newest),
            count: fresh.length,
            types: [...new Set(fresh.map((r) => r.type))],
          },
          seq: Number(newest.id),
          ids: fresh.map((r) => Number(r.id)),
        };
        return { seq: Math.max(want.since, Number(newest.id)), frames: [frame], refetch: false };
      });
    },
  };
}
