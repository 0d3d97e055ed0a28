import websocket from '@fastify/websocket';
import {
  WS_MAX_SUBSCRIPTIONS,
  WS_MAX_WATCHED_ACCOUNTS,
  can,
  findAsset,
  isStaffRole,
  liveAccountStream,
  wsClientMessageSchema,
  type WsServerMessage,
} from '@brokerage/shared';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { WebSocket } from 'ws';
import type { AppDeps } from '../deps.js';
import { scopeClients } from '../access/client-scope.js';
import { actorFromUser, type Actor } from '../auth/actor.js';
import { fromOwnPages } from '../auth/guard.js';
import { resolveSession } from '../auth/sessions.js';
import type { BusEvent } from '../bus/index.js';
import { HttpError } from '../http/errors.js';
import { LiveStreams, type LiveStreamReader, type StreamHeads, type StreamHolder } from './streams.js';

/** A socket's largest accepted message; the protocol's messages are small. */
const MAX_MESSAGE_BYTES = 16 * 1024;
/** Close codes: the session ended or the address is no longer allowed; going away when the server stops. */
const CLOSE_SESSION_ENDED = 4401;
const CLOSE_FORBIDDEN = 4403;
/**
 * Back-pressure (issue 12 item 4): a socket whose unsent bytes (ws bufferedAmount: the sender's queue and the TCP
 * socket's write buffer) exceed TICK_BUFFER_LIMIT gets no more tick frames queued; the latest tick of each of its
 * symbols is held instead (one frame per symbol, replaced by newer ones) and sent once its buffer is back under the
 * limit, checked every DRAIN_CHECK_MS while any socket is held back. A socket that still has more than
 * EVENT_BUFFER_LIMIT unsent bytes when a user event is due is closed (the client reconnects and refetches).
 */
export const TICK_BUFFER_LIMIT = 64 * 1024;
export const EVENT_BUFFER_LIMIT = 4 * 1024 * 1024;
const DRAIN_CHECK_MS = 25;

interface Connection extends StreamHolder {
  socket: WebSocket;
  userId: string | null;
  sessionId: string | null;
  staff: boolean;
  ip: string;
  assets: Set<string>;
  alive: boolean;
  /** Staff only: the client accounts watched (account id → the client's user id). */
  actor: Actor | null;
  watched: Map<number, string>;
  /** While the socket is held back: the latest tick frame per symbol, to send when its buffer drains. */
  held: Map<string, { symbol: string; payload: Buffer; wire: Buffer }> | null;
}

/** What the gateway needs of the price service: the latest price, and this process's own feed as it ticks. */
export interface LiveTickSource {
  latest(symbol: string): { price: string; at: Date } | undefined;
  /** Every tick of this process's feed (the leader's), as soon as it is stored; returns the unsubscribe function. */
  onTick(listener: (tick: { symbol: string; price: string; at: Date }) => void): () => void;
  /** Whether this process runs the feed (then its ticks come through onTick, and the bus only echoes them). */
  readonly running: boolean;
}

/**
 * GET /api/ws (decisions.md D11): one socket per tab. Authenticated on connect from the session cookie, a Bearer
 * header or ?token= (resolveSession, like every route); anonymous sockets may watch prices only. Ticks go to the
 * sockets subscribed to their asset (straight from this process's feed, or from the bus when another process runs
 * it), user events to the sockets of their user from the bus (so from every server process). Every incoming message
 * is checked against the shared schema; a bad one gets an error frame.
 * Dead sockets are closed by the heartbeat; a socket whose session was revoked or expired (or a staff socket whose
 * address left the whitelist) is closed by the periodic session check.
 * A user's account events are not taken from the bus: the bus only hints that an account changed, and each socket is
 * sent what changed after the sequence it has, read from the database (streams.ts, issue 21 §7), so a lost hint, a
 * lost listening connection or a socket that reconnects loses nothing.
 */
export async function registerLiveGateway(
  app: FastifyInstance,
  deps: AppDeps,
  prices: LiveTickSource,
  reader: LiveStreamReader,
): Promise<void> {
  // No compression: tick frames are written to the TCP stream directly (writeTicks), which needs ws's sender idle.
  await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false } });

  const connections = new Set<Connection>();
  const bySymbol = new Map<string, Set<Connection>>();
  const byUser = new Map<string, Set<Connection>>();
  /** Staff sockets watching a client's account, by that client's user id. */
  const watchersByUser = new Map<string, Set<Connection>>();

  const unwatch = (conn: Connection, accountId: number) => {
    const userId = conn.watched.get(accountId);
    if (userId === undefined) return;
    conn.watched.delete(accountId);
    streams.remove(conn, liveAccountStream(accountId));
    if ([...conn.watched.values()].includes(userId)) return;
    const set = watchersByUser.get(userId);
    set?.delete(conn);
    if (set?.size === 0) watchersByUser.delete(userId);
  };

  /** The client user behind an account, if the account exists and its client is in the staff member's scope. */
  const accountUserInScope = async (actor: Actor, accountId: number): Promise<string | undefined> => {
    const row = await scopeClients(
      deps.db.selectFrom('trading_accounts').innerJoin('clients', 'clients.id', 'trading_accounts.client_id'),
      actor,
      'clients',
    )
      .select('trading_accounts.user_id')
      .where('trading_accounts.id', '=', accountId)
      .executeTakeFirst();
    return row?.user_id;
  };

  const send = (conn: Connection, message: WsServerMessage) => {
    if (conn.socket.readyState === conn.socket.OPEN) conn.socket.send(JSON.stringify(message));
  };
  /** A user event: a socket this far behind is not reading, and is closed rather than queued for without bound. */
  const sendEvent = (conn: Connection, message: WsServerMessage) => {
    if (conn.socket.readyState !== conn.socket.OPEN) return;
    if (conn.socket.bufferedAmount > EVENT_BUFFER_LIMIT) {
      conn.socket.terminate();
      drop(conn);
      return;
    }
    conn.socket.send(JSON.stringify(message));
  };

  const streams = new LiveStreams(reader, app.log);
  /** Where a socket's streams stood just before its upgrade (read in the route's preHandler). */
  const headsOf = new WeakMap<FastifyRequest, StreamHeads>();
  const tickMessage = (symbol: string, price: string, at: string): WsServerMessage => ({
    type: 'tick',
    symbol,
    price: Number(price),
    at,
  });

  /** A tick ready to go: its JSON text (for ws.send) and the same as a complete WebSocket text frame (for raw writes). */
  interface DueTick {
    symbol: string;
    payload: Buffer;
    wire: Buffer;
  }
  /**
   * Writes tick frames to a socket. Frames built here go straight to the socket's TCP stream, several in one write:
   * ws itself would make a frame header and a system call per message. That is safe because nothing else can be
   * queued inside ws's sender in between: it queues only while compressing (perMessageDeflate is off, below) or
   * reading a Blob (never sent here). Should a ws version not expose its TCP socket (`_socket`), ws.send is used.
   */
  const writeTicks = (socket: WebSocket, ticks: readonly DueTick[], bytes?: Buffer) => {
    const tcp = (socket as unknown as { _socket?: Socket })._socket;
    if (tcp && typeof tcp.write === 'function') {
      if (tcp.writable)
        tcp.write(bytes ?? (ticks.length === 1 ? ticks[0]!.wire : Buffer.concat(ticks.map((t) => t.wire))));
      return;
    }
    for (const tick of ticks) socket.send(tick.payload, { binary: false });
  };

  /** Sockets holding ticks back until their buffer drains, and the timer that checks them (only while any is held). */
  const heldBack = new Set<Connection>();
  let drainTimer: NodeJS.Timeout | null = null;
  const checkDrained = () => {
    for (const conn of heldBack) {
      const socket = conn.socket;
      if (socket.readyState !== socket.OPEN || !conn.held) {
        conn.held = null;
        heldBack.delete(conn);
        continue;
      }
      if (socket.bufferedAmount > TICK_BUFFER_LIMIT) continue;
      const held = conn.held;
      conn.held = null;
      heldBack.delete(conn);
      writeTicks(socket, [...held.values()]);
    }
    if (heldBack.size === 0 && drainTimer) {
      clearInterval(drainTimer);
      drainTimer = null;
    }
  };
  const holdBack = (conn: Connection, tick: DueTick) => {
    (conn.held ??= new Map()).set(tick.symbol, tick);
    heldBack.add(conn);
    if (!drainTimer) {
      drainTimer = setInterval(checkDrained, DRAIN_CHECK_MS);
      drainTimer.unref();
    }
  };

  /** A text frame (RFC 6455 §5.2: FIN, opcode 1, unmasked as from a server) around a payload. */
  const textFrame = (payload: Buffer): Buffer => {
    const n = payload.length;
    const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(head + n);
    frame[0] = 0x81;
    if (n < 126) frame[1] = n;
    else if (n < 65_536) {
      frame[1] = 126;
      frame.writeUInt16BE(n, 2);
    } else {
      frame[1] = 127;
      frame.writeBigUInt64BE(BigInt(n), 2);
    }
    payload.copy(frame, head);
    return frame;
  };

  /**
   * The fan-out. A tick is serialised once, to one frame; at the end of the current turn of the event loop (a
   * microtask: the feed emits a second's ticks of every symbol in one go) each subscribed socket gets the frames of
   * its symbols, in order, in one write, and sockets with the same symbols share the bytes of that write. A socket
   * over TICK_BUFFER_LIMIT gets them held instead (latest per symbol). Each symbol's last tick is remembered, so the
   * same tick arriving twice (this process's feed, then its echo on the bus) goes out once.
   */
  const lastSent = new Map<string, { at: number; price: string }>();
  let due: DueTick[] = [];
  let fanOutQueued = false;
  const fanOut = () => {
    fanOutQueued = false;
    const ticks = due;
    due = [];
    const outbox = new Map<Connection, number[]>();
    for (let i = 0; i < ticks.length; i++) {
      const watchers = bySymbol.get(ticks[i]!.symbol);
      if (!watchers) continue;
      for (const conn of watchers) {
        const list = outbox.get(conn);
        if (list) list.push(i);
        else outbox.set(conn, [i]);
      }
    }
    const shared = new Map<string, { ticks: DueTick[]; bytes: Buffer }>();
    for (const [conn, list] of outbox) {
      const socket = conn.socket;
      if (socket.readyState !== socket.OPEN) continue;
      if (conn.held || socket.bufferedAmount > TICK_BUFFER_LIMIT) {
        for (const i of list) holdBack(conn, ticks[i]!);
        continue;
      }
      const key = list.length === 1 ? String(list[0]) : list.join(',');
      let batch = shared.get(key);
      if (!batch) {
        const mine = list.map((i) => ticks[i]!);
        batch = { ticks: mine, bytes: mine.length === 1 ? mine[0]!.wire : Buffer.concat(mine.map((t) => t.wire)) };
        shared.set(key, batch);
      }
      writeTicks(socket, batch.ticks, batch.bytes);
    }
  };
  const broadcastTick = (symbol: string, price: string, at: Date) => {
    const ms = at.getTime();
    const last = lastSent.get(symbol);
    if (last && (ms < last.at || (ms === last.at && price === last.price))) return;
    lastSent.set(symbol, { at: ms, price });
    if (!bySymbol.has(symbol)) return;
    const payload = Buffer.from(JSON.stringify(tickMessage(symbol, price, at.toISOString())));
    due.push({ symbol, payload, wire: textFrame(payload) });
    if (!fanOutQueued) {
      fanOutQueued = true;
      queueMicrotask(fanOut);
    }
  };

  /**
   * Issue 9 finding 4: a watch lasts only while the account's client is in the staff member's scope and their current
   * role may manage trading. Re-read from the database (role and scope), for every socket with watches.
   */
  let rechecking: Promise<void> | null = null;
  let recheckAgain = false;
  const recheckWatches = (): Promise<void> => {
    if (rechecking) {
      recheckAgain = true;
      return rechecking;
    }
    rechecking = (async () => {
      do {
        recheckAgain = false;
        const watching = [...connections].filter((c) => c.watched.size > 0 && c.userId !== null);
        if (watching.length === 0) continue;
        const users = await deps.db
          .selectFrom('users')
          .selectAll()
          .where(
            'id',
            'in',
            watching.map((c) => c.userId!),
          )
          .where('deleted_at', 'is', null)
          .execute();
        const byId = new Map(users.map((u) => [u.id, u]));
        for (const conn of watching) {
          const user = byId.get(conn.userId!);
          const actor = user ? actorFromUser(user, conn.ip) : null;
          if (actor) conn.actor = actor;
          const mayWatch = actor !== null && actor.role !== 'system' && can(actor.role, 'trading.manage');
          for (const accountId of [...conn.watched.keys()]) {
            const userId = mayWatch ? await accountUserInScope(actor, accountId) : undefined;
            if (userId !== undefined && userId === conn.watched.get(accountId)) continue;
            unwatch(conn, accountId);
            send(conn, { type: 'error', detail: `watch_revoked:${accountId}` });
          }
        }
      } while (recheckAgain);
    })()
      .catch((err: unknown) => app.log.warn({ err }, 'live watch re-check failed'))
      .finally(() => (rechecking = null));
    return rechecking;
  };

  const onEvent = (event: BusEvent) => {
    if (event.type === 'access.changed') {
      void recheckWatches();
      return;
    }
    if (event.type === 'bus.reconnected') {
      // What was announced while this process did not listen may be missed: every socket's streams are read again.
      streams.resync(connections);
      return;
    }
    if (event.type === 'price.tick') {
      // The feed leader's own ticks come straight from its feed (below); the bus brings the other processes theirs.
      if (prices.running) return;
      const at = new Date(event.at);
      if (!Number.isNaN(at.getTime())) broadcastTick(event.symbol, event.price, at);
      return;
    }
    if (event.type === 'price_log.head') {
      // D27: every socket (anonymous ones too) gets each signed head of the price log, once a second at most.
      const message: WsServerMessage = { type: 'price_log_head', head: event.head };
      for (const conn of connections) send(conn, message);
      return;
    }
    if (!('user_id' in event)) return;
    // Staff watching a client's account get its account events too (never its messages: the streams see to that).
    streams.onUserEvent(event, byUser.get(event.user_id) ?? [], watchersByUser.get(event.user_id) ?? []);
  };
  const unsubscribe = deps.bus.subscribe(onEvent);
  // A tick is sent as soon as this process's feed has stored it (issue 21 §3: no one sees a price that was never
  // stored), and not after a round trip through the bus.
  const unsubscribeTicks = prices.onTick((tick) => broadcastTick(tick.symbol, tick.price, tick.at));

  const drop = (conn: Connection) => {
    connections.delete(conn);
    for (const symbol of conn.assets) {
      const set = bySymbol.get(symbol);
      set?.delete(conn);
      if (set?.size === 0) bySymbol.delete(symbol);
    }
    conn.assets.clear();
    conn.held = null;
    heldBack.delete(conn);
    streams.closeAll(conn);
    if (conn.userId) {
      const set = byUser.get(conn.userId);
      set?.delete(conn);
      if (set?.size === 0) byUser.delete(conn.userId);
    }
    for (const accountId of [...conn.watched.keys()]) unwatch(conn, accountId);
  };

  const heartbeat = setInterval(() => {
    for (const conn of connections) {
      if (!conn.alive) {
        conn.socket.terminate();
        drop(conn);
        continue;
      }
      conn.alive = false;
      conn.socket.ping();
    }
  }, deps.config.WS_HEARTBEAT_MS);
  heartbeat.unref();

  const resync = setInterval(() => streams.resync(connections), deps.config.LIVE_RESYNC_MS);
  resync.unref();

  let checking = false;
  const sessionCheck = setInterval(() => {
    if (checking) return;
    const signedIn = [...connections].filter((c) => c.sessionId !== null);
    if (signedIn.length === 0) return;
    checking = true;
    void (async () => {
      const ids = [...new Set(signedIn.map((c) => c.sessionId!))];
      const live = await deps.db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select('s.id')
        .where('s.id', 'in', ids)
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', sql<Date>`now()`)
        .where('u.deleted_at', 'is', null)
        .execute();
      const valid = new Set(live.map((r) => r.id));
      for (const conn of signedIn) {
        if (!valid.has(conn.sessionId!)) {
          conn.socket.close(CLOSE_SESSION_ENDED, 'session_ended');
          drop(conn);
        } else if (conn.staff && !(await deps.whitelist.allows(conn.ip))) {
          conn.socket.close(CLOSE_FORBIDDEN, 'ip_not_allowed');
          drop(conn);
        }
      }
      // A change the bus did not carry (a lost notification, a direct database edit) is caught here.
      await recheckWatches();
    })()
      .catch((err: unknown) => app.log.warn({ err }, 'live sessions check failed'))
      .finally(() => (checking = false));
  }, deps.config.WS_SESSION_CHECK_MS);
  sessionCheck.unref();

  app.addHook('onClose', async () => {
    clearInterval(heartbeat);
    clearInterval(resync);
    clearInterval(sessionCheck);
    if (drainTimer) clearInterval(drainTimer);
    unsubscribe();
    unsubscribeTicks();
    for (const conn of connections) conn.socket.close(1001, 'server_stopping');
    connections.clear();
  });

  app.route({
    method: 'GET',
    url: '/api/ws',
    // Issue 13 (fuzz): a plain HTTP GET, without the upgrade, is answered 426 with a detail (the plugin's default
    // for `websocket: true` was an empty 404). Hidden from the OpenAPI document, which has no WebSocket operations.
    handler: async () => {
      throw new HttpError(426, 'websocket_upgrade_required');
    },
    schema: {
      hide: true,
      tags: ['live'],
      summary: 'Live updates (WebSocket): price ticks per subscribed asset and the events of the signed-in user',
    },
    // ?token= for clients that cannot send the cookie or a header; checked before the upgrade, like every route.
    preHandler: async (request: FastifyRequest) => {
      const token = (request.query as Record<string, unknown> | undefined)?.token;
      if (!request.auth && typeof token === 'string' && token.length > 0 && token.length < 200) {
        const resolved = await resolveSession(deps.db, token);
        if (!resolved) throw new HttpError(401, 'not_authenticated');
        request.auth = {
          user: resolved.user,
          sessionId: resolved.sessionId,
          actor: actorFromUser(resolved.user, request.ip),
          via: 'bearer',
        };
      }
      const auth = request.auth;
      // A browser opens a socket to any site with that site's cookie (no CORS for WebSockets): a cookie-authenticated
      // socket must come from our own pages (issue 9 finding 3). A program with Bearer or ?token= may omit Origin.
      if (auth?.via === 'cookie' && !fromOwnPages(request)) throw new HttpError(403, 'bad_origin');
      if (auth && isStaffRole(auth.user.role) && !(await deps.whitelist.allows(request.ip))) {
        throw new HttpError(403, 'ip_not_allowed', { ip: request.ip });
      }
      // Before the upgrade, so a socket is sent every change committed after it opened (issue 21 §7).
      if (auth) headsOf.set(request, await reader.heads(auth.user.id));
    },
    wsHandler: (socket, request) => {
      const auth = request.auth;
      const conn: Connection = {
        socket,
        userId: auth?.user.id ?? null,
        sessionId: auth?.sessionId ?? null,
        staff: auth ? isStaffRole(auth.user.role) : false,
        ip: request.ip,
        assets: new Set(),
        alive: true,
        actor: auth ? actorFromUser(auth.user, request.ip) : null,
        watched: new Map(),
        held: null,
        streams: new Map(),
        own: null,
        io: {
          send: (message) => sendEvent(conn, message),
          isOpen: () => conn.socket.readyState === conn.socket.OPEN && connections.has(conn),
        },
      };
      connections.add(conn);
      if (conn.userId) {
        let set = byUser.get(conn.userId);
        if (!set) byUser.set(conn.userId, (set = new Set()));
        set.add(conn);
        // Its streams, each from where it stood before the upgrade (a resume moves it back to what the client saw).
        const heads = headsOf.get(request);
        if (heads) streams.openOwn(conn, conn.userId, conn.staff, heads);
      }
      socket.on('pong', () => (conn.alive = true));
      socket.on('close', () => drop(conn));
      socket.on('error', () => drop(conn));
      socket.on('message', (data, isBinary) => {
        conn.alive = true;
        let parsed: unknown;
        try {
          parsed = isBinary ? undefined : JSON.parse(data.toString());
        } catch {
          parsed = undefined;
        }
        const result = wsClientMessageSchema.safeParse(parsed);
        if (!result.success) {
          send(conn, { type: 'error', detail: 'bad_message' });
          return;
        }
        const message = result.data;
        if (message.type === 'ping') {
          send(conn, { type: 'pong' });
          return;
        }
        if (message.type === 'resume') {
          void streams
            .resume(conn, message.streams)
            .then((now) => {
              if (connections.has(conn)) send(conn, { type: 'resumed', streams: now });
            })
            .catch((err: unknown) => app.log.warn({ err }, 'live resume failed'));
          return;
        }
        if (message.type === 'unwatch_account') {
          unwatch(conn, message.account_id);
          return;
        }
        if (message.type === 'watch_account') {
          const actor = conn.actor;
          if (!conn.staff || !actor || actor.role === 'system' || !can(actor.role, 'trading.manage')) {
            send(conn, { type: 'error', detail: 'forbidden' });
            return;
          }
          if (!conn.watched.has(message.account_id) && conn.watched.size >= WS_MAX_WATCHED_ACCOUNTS) {
            send(conn, { type: 'error', detail: 'too_many_watched_accounts' });
            return;
          }
          const accountId = message.account_id;
          void accountUserInScope(actor, accountId)
            .then((userId) => {
              if (!userId) {
                send(conn, { type: 'error', detail: `account_not_found:${accountId}` });
                return;
              }
              if (!connections.has(conn)) return;
              conn.watched.set(accountId, userId);
              let set = watchersByUser.get(userId);
              if (!set) watchersByUser.set(userId, (set = new Set()));
              set.add(conn);
              // From the sequence the staff screen last saw (replayed first), or from where the account stands.
              return streams.watch(conn, accountId, message.seq).then((stream) => {
                if (!connections.has(conn) || conn.streams.get(stream.key) !== stream) return;
                send(conn, { type: 'watching', account_id: accountId, stream: stream.key, seq: stream.cursor ?? 0 });
              });
            })
            .catch((err: unknown) => app.log.warn({ err }, 'watch_account failed'));
          return;
        }
        const symbols: string[] = [];
        for (const raw of message.assets) {
          const asset = findAsset(raw.toUpperCase());
          if (!asset) {
            send(conn, { type: 'error', detail: `unknown_asset:${raw.slice(0, 32)}` });
            return;
          }
          symbols.push(asset.symbol);
        }
        if (message.type === 'unsubscribe') {
          for (const symbol of symbols) {
            conn.assets.delete(symbol);
            const set = bySymbol.get(symbol);
            set?.delete(conn);
            if (set?.size === 0) bySymbol.delete(symbol);
          }
          return;
        }
        const added = symbols.filter((s) => !conn.assets.has(s));
        if (conn.assets.size + new Set(added).size > WS_MAX_SUBSCRIPTIONS) {
          send(conn, { type: 'error', detail: 'too_many_subscriptions' });
          return;
        }
        for (const symbol of added) {
          conn.assets.add(symbol);
          let set = bySymbol.get(symbol);
          if (!set) bySymbol.set(symbol, (set = new Set()));
          set.add(conn);
          // The current price at once, so a chart need not wait for the next tick.
          const now = prices.latest(symbol);
          if (now) send(conn, tickMessage(symbol, now.price, now.at.toISOString()));
        }
      });
    },
  });
}
