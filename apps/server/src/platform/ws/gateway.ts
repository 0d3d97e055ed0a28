import websocket from '@fastify/websocket';
import {
  LIVE_USER_EVENT_TYPES,
  WS_MAX_SUBSCRIPTIONS,
  WS_MAX_WATCHED_ACCOUNTS,
  can,
  findAsset,
  isStaffRole,
  wsClientMessageSchema,
  type WsServerMessage,
} from '@brokerage/shared';
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

/** A socket's largest accepted message; the protocol's messages are small. */
const MAX_MESSAGE_BYTES = 16 * 1024;
/** Close codes: the session ended or the address is no longer allowed; going away when the server stops. */
const CLOSE_SESSION_ENDED = 4401;
const CLOSE_FORBIDDEN = 4403;

interface Connection {
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
}

const USER_EVENTS = new Set<string>(LIVE_USER_EVENT_TYPES);

/**
 * GET /api/ws (decisions.md D11): one socket per tab. Authenticated on connect from the session cookie, a Bearer
 * header or ?token= (resolveSession, like every route); anonymous sockets may watch prices only. Ticks go to the
 * sockets subscribed to their asset, user events to the sockets of their user, both from the bus (so from every
 * server process). Every incoming message is checked against the shared schema; a bad one gets an error frame.
 * Dead sockets are closed by the heartbeat; a socket whose session was revoked or expired (or a staff socket whose
 * address left the whitelist) is closed by the periodic session check.
 */
export async function registerLiveGateway(
  app: FastifyInstance,
  deps: AppDeps,
  latest: (symbol: string) => { price: string; at: Date } | undefined,
): Promise<void> {
  await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });

  const connections = new Set<Connection>();
  const bySymbol = new Map<string, Set<Connection>>();
  const byUser = new Map<string, Set<Connection>>();
  /** Staff sockets watching a client's account, by that client's user id. */
  const watchersByUser = new Map<string, Set<Connection>>();

  const unwatch = (conn: Connection, accountId: number) => {
    const userId = conn.watched.get(accountId);
    if (userId === undefined) return;
    conn.watched.delete(accountId);
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
  const tickMessage = (symbol: string, price: string, at: string): WsServerMessage => ({
    type: 'tick',
    symbol,
    price: Number(price),
    at,
  });

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
    if (event.type === 'price.tick') {
      const watchers = bySymbol.get(event.symbol);
      if (!watchers) return;
      const frame = JSON.stringify(tickMessage(event.symbol, event.price, event.at));
      for (const conn of watchers) if (conn.socket.readyState === conn.socket.OPEN) conn.socket.send(frame);
      return;
    }
    if (!('user_id' in event) || !USER_EVENTS.has(event.type)) return;
    const owners = byUser.get(event.user_id);
    // Staff watching this client's account get its trade and balance events too (never its messages).
    const watchers = event.type === 'message.new' ? undefined : watchersByUser.get(event.user_id);
    if (!owners && !watchers) return;
    const frame = JSON.stringify({ type: event.type, payload: event.payload });
    for (const conn of new Set([...(owners ?? []), ...(watchers ?? [])])) {
      if (conn.socket.readyState === conn.socket.OPEN) conn.socket.send(frame);
    }
  };
  const unsubscribe = deps.bus.subscribe(onEvent);

  const drop = (conn: Connection) => {
    connections.delete(conn);
    for (const symbol of conn.assets) {
      const set = bySymbol.get(symbol);
      set?.delete(conn);
      if (set?.size === 0) bySymbol.delete(symbol);
    }
    conn.assets.clear();
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
    clearInterval(sessionCheck);
    unsubscribe();
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
      };
      connections.add(conn);
      if (conn.userId) {
        let set = byUser.get(conn.userId);
        if (!set) byUser.set(conn.userId, (set = new Set()));
        set.add(conn);
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
              send(conn, { type: 'watching', account_id: accountId });
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
          const now = latest(symbol);
          if (now) send(conn, tickMessage(symbol, now.price, now.at.toISOString()));
        }
      });
    },
  });
}
