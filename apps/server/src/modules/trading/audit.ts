import {
  AUDIT_FULL_TICKS_MAX_SECONDS,
  AUDIT_WINDOW_SECONDS,
  SETTLEMENT_GAP_SECONDS,
  settlementRule,
  type Lang,
  type PriceTickView,
  type SettlementRuleView,
  type TradeAudit,
  type TradeDirection,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { Actor } from '../../platform/auth/actor.js';
import { scopeClients } from '../../platform/access/client-scope.js';
import type { Db } from '../../platform/db/index.js';
import type { TradeRow } from '../../platform/db/types.js';
import { HttpError } from '../../platform/http/errors.js';
import { ticksBetween, toTick } from '../prices/ticks.js';
import { toClientTrade } from './mappers.js';

/**
 * The contract audit of one trade (issue 14, D1): the stored trade, the published rule, and the stored ticks and
 * candles it was settled by. Read only; it shows what the server stored and computes no outcome.
 */

const WINDOW_MS = AUDIT_WINDOW_SECONDS * 1000;

const SENTENCES: Record<Lang, Record<TradeDirection, string>> = {
  en: {
    call:
      'A call wins when the close price (the last price at or before the expiry) is above the strike price and ' +
      'loses when it is below; an equal price is a tie and the stake is returned.',
    put:
      'A put wins when the close price (the last price at or before the expiry) is below the strike price and ' +
      'loses when it is above; an equal price is a tie and the stake is returned.',
  },
  ru: {
    call:
      'Сделка «Выше» (call) выигрывает, если цена закрытия (последняя цена на момент экспирации или раньше) выше ' +
      'цены открытия, и проигрывает, если ниже; при равных ценах — ничья, ставка возвращается.',
    put:
      'Сделка «Ниже» (put) выигрывает, если цена закрытия (последняя цена на момент экспирации или раньше) ниже ' +
      'цены открытия, и проигрывает, если выше; при равных ценах — ничья, ставка возвращается.',
  },
};

/** D22's gap rule, published with the rule. */
const GAP_SENTENCE: Record<Lang, string> = {
  en:
    `If no price was stored in the ${SETTLEMENT_GAP_SECONDS} s before the expiry (a gap in the price feed), the ` +
    'trade is settled without a price: the stake is returned. A trade is never settled at an older price.',
  ru:
    `Если за ${SETTLEMENT_GAP_SECONDS} с до экспирации не сохранено ни одной цены (перерыв в котировках), сделка ` +
    'закрывается без цены: ставка возвращается. По более старой цене сделка не рассчитывается никогда.',
};

/** Why a trade settled without a price (D22). */
const NO_PRICE_SENTENCE: Record<Lang, (last: string | null) => string> = {
  en: (last) =>
    `No price was stored in the ${SETTLEMENT_GAP_SECONDS} s before the expiry ` +
    `(${last ? `the last one before it is from ${last}` : 'none before it at all'}): the stake was returned.`,
  ru: (last) =>
    `За ${SETTLEMENT_GAP_SECONDS} с до экспирации не сохранено ни одной цены ` +
    `(${last ? `последняя перед ней — от ${last}` : 'перед ней цен нет вовсе'}): ставка возвращена.`,
};

export function ruleOf(direction: TradeDirection, lang: Lang): SettlementRuleView {
  return { sentence: `${SENTENCES[lang][direction]} ${GAP_SENTENCE[lang]}`, ...settlementRule(direction) };
}

/** The reason of a trade the gap rule settled: the last stored tick at or before its expiry, if any. */
async function noPriceReason(db: Db, row: TradeRow, lang: Lang): Promise<TradeAudit['no_price']> {
  if (row.status !== 'no_price') return null;
  const last = await db
    .selectFrom('price_ticks')
    .select('at')
    .where('symbol', '=', row.asset)
    .where('at', '<=', new Date(row.expires_at))
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const lastAt = last ? new Date(last.at).toISOString() : null;
  return {
    reason: 'feed_gap',
    sentence: NO_PRICE_SENTENCE[lang](lastAt),
    gap_seconds: SETTLEMENT_GAP_SECONDS,
    last_tick_at: lastAt,
  };
}

/**
 * The audit of a trade row. Up to 10 minutes long: every stored tick from strike − 30 s to expiry + 30 s (for an
 * open trade, up to now). Longer: the ticks of the two windows (strike ± 30 s, expiry ± 30 s; an open trade's second
 * window is the last 30 s), the close tick wherever it is, and the 1-minute candles in between.
 */
export async function auditOfTrade(db: Db, row: TradeRow, now: Date, lang: Lang): Promise<TradeAudit> {
  const strikeAt = new Date(row.strike_at);
  const expiresAt = new Date(row.expires_at);
  const from = new Date(strikeAt.getTime() - WINDOW_MS);
  const end = new Date(Math.min(expiresAt.getTime() + WINDOW_MS, now.getTime()));
  const long = expiresAt.getTime() - strikeAt.getTime() > AUDIT_FULL_TICKS_MAX_SECONDS * 1000;
  let ticks: PriceTickView[];
  let candles: TradeAudit['candles'] = [];
  if (!long) {
    ticks = (await ticksBetween(db, row.asset, from, end)).map(toTick);
  } else {
    const firstEnd = new Date(Math.min(strikeAt.getTime() + WINDOW_MS, end.getTime()));
    const secondFrom = new Date(Math.max(firstEnd.getTime(), Math.min(expiresAt.getTime(), end.getTime()) - WINDOW_MS));
    const first = await ticksBetween(db, row.asset, from, firstEnd);
    const second = secondFrom > firstEnd ? await ticksBetween(db, row.asset, secondFrom, end) : [];
    const merged = [...first, ...second];
    // A feed that stalled before the expiry leaves the close tick outside the window: it is shown too.
    if (row.close_at !== null) {
      const closeAt = new Date(row.close_at).getTime();
      if (closeAt > firstEnd.getTime() && closeAt < secondFrom.getTime()) {
        merged.splice(first.length, 0, { at: new Date(row.close_at), price: String(row.close_price) });
      }
    }
    ticks = merged.map(toTick);
    const rows = await sql<{ minute: Date | string; open: string; high: string; low: string; close: string }>`
      select minute, open, high, low, close from candles_1m
      where symbol = ${row.asset}
        and minute >= date_trunc('minute', ${from.toISOString()}::timestamptz)
        and minute <= ${end.toISOString()}::timestamptz
      order by minute`.execute(db);
    candles = rows.rows.map((r) => ({
      time: Math.floor(new Date(r.minute).getTime() / 1000),
      open: Number(r.open),
      high: Number(r.high),
      low: Number(r.low),
      close: Number(r.close),
    }));
  }
  return {
    trade: toClientTrade(row),
    rule: ruleOf(row.direction, lang),
    ticks,
    candles,
    no_price: await noPriceReason(db, row, lang),
  };
}

/** GET /api/trading/trades/{id}/audit: the caller's own trade, else 404 like a missing one. */
export async function clientTradeAudit(
  db: Db,
  userId: string,
  tradeId: number,
  now: Date,
  lang: Lang,
): Promise<TradeAudit> {
  const row = await db
    .selectFrom('trades')
    .innerJoin('trading_accounts as a', 'a.id', 'trades.account_id')
    .selectAll('trades')
    .where('trades.id', '=', tradeId)
    .where('a.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'trade_not_found');
  return auditOfTrade(db, row, now, lang);
}

/** GET /api/trading/admin/accounts/{accountId}/trades/{id}/audit: through the client scope (D5); outside it, 404. */
export async function staffTradeAudit(
  db: Db,
  actor: Actor,
  accountId: number,
  tradeId: number,
  now: Date,
  lang: Lang,
): Promise<TradeAudit> {
  const account = await scopeClients(
    db.selectFrom('trading_accounts as a').innerJoin('clients', 'clients.id', 'a.client_id'),
    actor,
  )
    .select('a.id')
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new HttpError(404, 'trading_account_not_found');
  const row = await db
    .selectFrom('trades')
    .selectAll()
    .where('id', '=', tradeId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new HttpError(404, 'trade_not_found');
  return auditOfTrade(db, row, now, lang);
}
