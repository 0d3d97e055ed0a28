import { z } from 'zod';

/**
 * The live-update protocol of GET /api/ws (decisions.md D11). One socket per browser tab: price ticks for the assets it
 * subscribed to, and the events of its signed-in user. Sockets notify; screens fetch (the events carry a payload for
 * convenience, but the queries stay the source of truth).
 */

/** The per-user events; each belongs to one user and reaches only that user's sockets. */
export const LIVE_USER_EVENT_TYPES = [
  'trade.opened',
  'trade.settled',
  'balance.changed',
  'message.new',
  'notification.new',
] as const;
export type LiveUserEventType = (typeof LIVE_USER_EVENT_TYPES)[number];

/** How many assets one socket may watch at once. */
export const WS_MAX_SUBSCRIPTIONS = 50;

const assetList = z.array(z.string().min(1).max(32)).min(1).max(WS_MAX_SUBSCRIPTIONS);

/** Client → server. */
export const wsClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), assets: assetList }).strict(),
  z.object({ type: z.literal('unsubscribe'), assets: assetList }).strict(),
  z.object({ type: z.literal('ping') }).strict(),
  /**
   * Staff with trading.manage: receive the trade and balance events of one client's trading account while its screen
   * is open. The server checks the account against the caller's client scope (D5); out of scope is refused like a
   * missing account.
   */
  z.object({ type: z.literal('watch_account'), account_id: z.number().int().positive() }).strict(),
  z.object({ type: z.literal('unwatch_account'), account_id: z.number().int().positive() }).strict(),
]);

/** How many client accounts one staff socket may watch at once. */
export const WS_MAX_WATCHED_ACCOUNTS = 20;
export type WsClientMessage = z.infer<typeof wsClientMessageSchema>;

export const wsTickSchema = z.object({
  type: z.literal('tick'),
  symbol: z.string(),
  /** The price as the API shows prices (a number with the asset's decimals). */
  price: z.number(),
  /** ISO 8601, UTC. */
  at: z.string(),
});

export const wsUserEventSchema = z.object({
  type: z.enum(LIVE_USER_EVENT_TYPES),
  payload: z.record(z.string(), z.unknown()),
});

/** Server → client. */
export const wsServerMessageSchema = z.union([
  wsTickSchema,
  wsUserEventSchema,
  z.object({ type: z.literal('pong') }),
  /** The answer to watch_account once the account is watched. */
  z.object({ type: z.literal('watching'), account_id: z.number().int() }),
  z.object({ type: z.literal('error'), detail: z.string() }),
]);
export type WsServerMessage = z.infer<typeof wsServerMessageSchema>;
export type WsTick = z.infer<typeof wsTickSchema>;
export type WsUserEvent = z.infer<typeof wsUserEventSchema>;
