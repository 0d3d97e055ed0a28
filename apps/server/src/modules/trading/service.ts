import {
  DEFAULT_MAX_TRADE_DOLLARS,
  DEFAULT_PAYOUT_PERCENTAGE,
  MAX_PRICE_AGE_MS,
  MIN_TRADE_DOLLARS,
  centsToDollars,
  dollarsToCents,
  formatDollarLimit,
  isAssetSymbol,
  tradeAmountTooSmall,
  tradeCheck,
  type BalanceResponse,
  type ClientSettingsResponse,
  type PlaceTradeRequest,
  type PlaceTradeResponse,
  type Trade,
  type TradesQuery,
  type TradesResponse,
} from '@brokerage/shared';
import { sql } from 'kysely';
import type { EventBus } from '../../platform/bus/index.js';
import type { Db } from '../../platform/db/index.js';
import type { TradingAccountRow } from '../../platform/db/types.js';
import { HttpError } from '../../platform/http/errors.js';
import { creditPendingDeposits } from '../ledger/pending-deposits.js';
import type { PriceService } from '../prices/service.js';
import { toClientTrade } from './mappers.js';
import { postTradeStake } from './stake.js';

/** What the client side of trading needs: the database, the server's prices, its clock and the offered durations. */
export interface TradingDeps {
  db: Db;
  prices: PriceService;
  now: () => Date;
  durations: readonly number[];
  bus: EventBus;
}

/**
 * Opens the trading account of a client user with balance 0 (client-platform.md §3 defaults), in the caller's
 * transaction: registration calls it in the transaction that creates the user. Returns the account id; an account
 * that already exists is kept as it is.
 */
export async function openTradingAccount(
  trx: Db,
  input: { clientId: number | string; userId: string },
): Promise<number> {
  await trx
    .insertInto('trading_accounts')
    .values({ client_id: Number(input.clientId), user_id: input.userId })
    .onConflict((oc) => oc.column('client_id').doNothing())
    .execute();
  const row = await trx
    .selectFrom('trading_accounts')
    .select('id')
    .where('client_id', '=', Number(input.clientId))
    .executeTakeFirstOrThrow();
  // Deposits recorded in the CRM before the client had an account are credited now (decisions.md D3).
  await creditPendingDeposits(trx, Number(input.clientId), Number(row.id));
  return Number(row.id);
}

async function accountOfUser(db: Db, userId: string): Promise<TradingAccountRow> {
  const account = await db.selectFrom('trading_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!account) throw new HttpError(404, 'trading_account_not_found');
  return account;
}

/**
 * POST /api/trading/place-trade (D1). Checked in this order, on the account row as locked (so concurrent calls see
 * each other's stakes): account active and trading enabled; amount ≥ $1; amount ≤ the account's limit; amount ≤
 * balance; the asset is in the catalogue and the server has a stored price for it no older than 5 s; the duration is
 * offered. The account's checks are the shared tradeCheck (here, to answer) and its SQL twin (in the statement, to
 * decide). Then, in the same statement (tradeStakeStatement, stake.ts: one round trip, atomic by itself, or part of
 * the caller's transaction when it runs in one): the stake taken and posted (the ledger's parts), the trade at the
 * newest stored tick (issue 21 §3: never a price that was not stored) with the account's payout. Whatever strike or
 * payout the client sent is not read.
 */
export async function placeTrade(
  deps: TradingDeps,
  db: Db,
  userId: string,
  input: PlaceTradeRequest,
): Promise<PlaceTradeResponse> {
  const now = deps.now();
  // The checks that need no account row, decided first but answered in the documented order (after the account's).
  const amountCents = dollarsToCents(input.amount);
  const tooSmall = () => new HttpError(400, 'trade_amount_too_small', { min: `$${MIN_TRADE_DOLLARS}` });
  const amountRefused = tradeAmountTooSmall(amountCents) ? tooSmall() : null;
  // An unknown asset has no price either; it gets its own text because the client can correct it. Whether there is a
  // fresh stored price the statement finds out itself (answered between the two).
  const assetRefused = !isAssetSymbol(input.asset) ? new HttpError(400, 'unknown_asset', { asset: input.asset }) : null;
  const durationRefused = !deps.durations.includes(input.duration)
    ? new HttpError(400, 'duration_not_offered', { duration: input.duration, allowed: deps.durations.join(', ') })
    : null;

  const result = await postTradeStake(db, {
    userId,
    allowed: amountRefused === null && assetRefused === null && durationRefused === null,
    amountCents: amountRefused === null ? amountCents! : 0,
    asset: input.asset,
    direction: input.direction,
    durationSeconds: input.duration,
    priceNotBefore: new Date(now.getTime() - MAX_PRICE_AGE_MS),
    expiresAt: new Date(now.getTime() + input.duration * 1000),
    now,
  });
  if (!result) throw new HttpError(404, 'trading_account_not_found');
  if (result.placed) {
    const { trade, balanceAfterCents } = result.placed;
    return { trade: toClientTrade(trade), balance: centsToDollars(balanceAfterCents) };
  }
  const { account } = result;
  const maxCents = Number(account.max_trade_amount_cents);
  const problem = tradeCheck({
    accountActive: account.status === 'active',
    tradingEnabled: account.trading_enabled,
    amountCents,
    maxCents,
    balanceCents: Number(account.balance_cents),
  });
  if (problem === 'trading_disabled') throw new HttpError(409, 'trading_disabled');
  if (problem === 'trade_amount_too_small') throw tooSmall();
  if (problem === 'trade_amount_too_large') throw new HttpError(400, problem, { max: formatDollarLimit(maxCents) });
  if (problem === 'insufficient_trade_balance') throw new HttpError(409, problem);
  if (assetRefused) throw assetRefused;
  if (!result.priced) throw new HttpError(503, 'price_unavailable');
  if (durationRefused) throw durationRefused;
  // Every check passed on the locked row, so the guarded balance move cannot have refused; should it ever, it is
  // still a refusal for want of balance, never a half-placed trade (nothing was written).
  throw new HttpError(409, 'insufficient_trade_balance');
}

/**
 * D11, after the place-trade statement has committed: a hint that the client's account changed; its sockets read the
 * trade and the new balance from the database (issue 21 §7), so the hint carries no sequence: it marks every stream of
 * the user's account, which reads from its own cursor.
 */
export function publishTradeOpened(bus: EventBus, userId: string): void {
  bus.publish({ type: 'account.changed', user_id: userId });
}

/** The client's trades, newest first, paged (D4); `status: 'closed'` is every trade that is not active. */
export async function listTrades(deps: TradingDeps, userId: string, query: TradesQuery): Promise<TradesResponse> {
  const account = await accountOfUser(deps.db, userId);
  let base = deps.db.selectFrom('trades').where('account_id', '=', account.id);
  if (query.status === 'closed') base = base.where('status', '!=', 'active');
  else if (query.status) base = base.where('status', '=', query.status);
  const { total } = await base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page)
    .execute();
  return { items: rows.map(toClientTrade), total: Number(total) };
}

/** The client's active trades, soonest expiry first. */
export async function openTrades(deps: TradingDeps, userId: string): Promise<Trade[]> {
  const account = await accountOfUser(deps.db, userId);
  const rows = await deps.db
    .selectFrom('trades')
    .selectAll()
    .where('account_id', '=', account.id)
    .where('status', '=', 'active')
    .orderBy('expires_at')
    .orderBy('id')
    .execute();
  return rows.map(toClientTrade);
}

/** The balance and the sum of the results of settled trades. */
export async function balance(deps: TradingDeps, userId: string): Promise<BalanceResponse> {
  const account = await accountOfUser(deps.db, userId);
  const { profit } = await deps.db
    .selectFrom('trades')
    .select(sql<string>`coalesce(sum(profit_cents), 0)`.as('profit'))
    .where('account_id', '=', account.id)
    .executeTakeFirstOrThrow();
  return { balance: centsToDollars(account.balance_cents), total_profit: centsToDollars(profit) };
}

export async function clientSettings(deps: TradingDeps, userId: string): Promise<ClientSettingsResponse> {
  const account = await accountOfUser(deps.db, userId);
  return {
    payout_percentage: account.payout_percentage,
    trading_enabled: account.trading_enabled && account.status === 'active',
    max_trade_amount: centsToDollars(account.max_trade_amount_cents),
    min_trade_amount: MIN_TRADE_DOLLARS,
    durations: [...deps.durations],
  };
}

/** Demo mode (D16): what an anonymous visitor may know — the offered durations and a new account's defaults. */
export function demoSettings(deps: Pick<TradingDeps, 'durations'>): ClientSettingsResponse {
  return {
    payout_percentage: DEFAULT_PAYOUT_PERCENTAGE,
    trading_enabled: true,
    max_trade_amount: DEFAULT_MAX_TRADE_DOLLARS,
    min_trade_amount: MIN_TRADE_DOLLARS,
    durations: [...deps.durations],
  };
}
