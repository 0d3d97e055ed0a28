import { z } from 'zod';
import { wsPriceLogHeadSchema } from './trading/price-log.js';

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

/**
 * Streams and their sequences (issue 21 §7; docs/architecture.md "Live updates"). A per-user event belongs to a stream:
 * `account:<id>` (a trading account's trade.opened, trade.settled, balance.changed: its owner's, and a watching staff
 * member's), `messages` (message.new, a client's), `notifications` (notification.new, a staff member's). Each frame
 * of a stream carries `seq`: once a client has applied that frame it has everything of the stream up to `seq`. A
 * socket that reconnects sends the last `seq` of each stream in `resume` (and `watch_account`); the server sends what
 * was missed, read from the database, then `resumed` — or `refetch` for a stream whose gap is too long to replay.
 */
export const LIVE_STREAM_MESSAGES = 'messages';
export const LIVE_STREAM_NOTIFICATIONS = 'notifications';
export const liveAccountStream = (accountId: number): string => `account:${accountId}`;
/** A replay longer than this many frames of one stream is a `refetch` instead. */
export const LIVE_REPLAY_MAX = 500;

const streamKey = z.string().min(1).max(40);
const streamSeq = z.number().int().min(0);

const assetList = z.array(z.string().min(1).max(32)).min(1).max(WS_MAX_SUBSCRIPTIONS);

/** Client → server. */
export const wsClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), assets: assetList }).strict(),
  z.object({ type: z.literal('unsubscribe'), assets: assetList }).strict(),
  z.object({ type: z.literal('ping') }).strict(),
  /** After a reconnect: the last `seq` seen of each stream (see above). Streams the socket does not have are ignored. */
  z
    .object({
      type: z.literal('resume'),
      streams: z.record(streamKey, streamSeq).refine((r) => Object.keys(r).length <= 25),
    })
    .strict(),
  /**
   * Staff with trading.manage: receive the trade and balance events of one client's trading account while its screen
   * is open. The server checks the account against the caller's client scope (D5); out of scope is refused like a
   * missing account.
   */
  z
    .object({
      type: z.literal('watch_account'),
      account_id: z.number().int().positive(),
      /** The last `seq` seen of the account's stream, when watching it again after a reconnect. */
      seq: streamSeq.optional(),
    })
    .strict(),
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
  /** The stream and its sequence (see LIVE_REPLAY_MAX); `replay` marks a frame read back after a gap. */
  stream: streamKey.optional(),
  seq: streamSeq.optional(),
  replay: z.boolean().optional(),
});

/** Server → client. */
export const wsServerMessageSchema = z.union([
  wsTickSchema,
  /** D27: a signed tree head of the price log, to every socket, after each head the feed publishes. */
  wsPriceLogHeadSchema,
  wsUserEventSchema,
  z.object({ type: z.literal('pong') }),
  /** The answer to watch_account once the account is watched. */
  z.object({ type: z.literal('watching'), account_id: z.number().int(), stream: streamKey, seq: streamSeq }),
  /** The answer to resume, after the replayed frames: every stream of the socket and its current `seq`. */
  z.object({ type: z.literal('resumed'), streams: z.record(streamKey, streamSeq) }),
  /** The gap of a stream was too long to replay: refetch everything of it; `seq` is where it now stands. */
  z.object({ type: z.literal('refetch'), stream: streamKey, seq: streamSeq }),
  z.object({ type: z.literal('error'), detail: z.string() }),
]);
export type WsServerMessage = z.infer<typeof wsServerMessageSchema>;
export type WsTick = z.infer<typeof wsTickSchema>;
export type WsUserEvent = z.infer<typeof wsUserEventSchema>;
