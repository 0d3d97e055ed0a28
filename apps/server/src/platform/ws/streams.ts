import {
  LIVE_STREAM_MESSAGES,
  LIVE_STREAM_NOTIFICATIONS,
  liveAccountStream,
  type LiveUserEventType,
  type WsServerMessage,
} from '@brokerage/shared';

/**
 * The per-socket streams of the live gateway (issue 21 §7; docs/architecture.md "Live updates"). Each socket has a
 * stream per thing it follows — its trading account, its messages or notifications, each account it watches — and,
 * per stream, the sequence it has been sent everything up to (`cursor`). Whatever asks for a stream to be brought up
 * to date (a bus hint, `resume`, the bus reconnecting, the periodic resync) only marks it; the marked streams of all
 * sockets are then read together, one statement per kind, and each socket is sent what it lacks, in order.
 */
export type StreamKind = 'account' | 'messages' | 'notifications';

/** One frame of a stream, without its stream name (the scheduler adds it). */
export interface StreamFrame {
  type: LiveUserEventType;
  payload: Record<string, unknown>;
  seq: number;
  /** Messages and notifications: the ids the frame tells of (default: `seq`); it is sent unless all were sent. */
  ids?: number[];
}

export interface StreamRead {
  /** Where the stream stands after these frames. */
  seq: number;
  frames: StreamFrame[];
  /** The gap cannot be replayed (longer than LIVE_REPLAY_MAX, or the client's sequence is ahead of the database's). */
  refetch: boolean;
}

/** `since` null: where the stream stands, without frames (a socket's first read). */
export interface StreamWant<K> {
  key: K;
  since: number | null;
}

/** The database side of the streams (modules/live/streams.ts). */
export interface LiveStreamReader {
  /** Where a user's streams stand: their trading account (stream `account:<id>`, if any), messages, notifications. */
  heads(
    userId: string,
  ): Promise<{ account: { id: number; seq: number } | null; messages: number; notifications: number }>;
  /** One answer per want, in order; null for an account that does not exist. */
  accounts(wants: readonly StreamWant<number>[]): Promise<(StreamRead | null)[]>;
  messages(wants: readonly StreamWant<string>[]): Promise<StreamRead[]>;
  notifications(wants: readonly StreamWant<string>[]): Promise<StreamRead[]>;
}

export interface LiveStream {
  readonly key: string;
  readonly kind: StreamKind;
  /** The account id (account streams) or the user id (messages, notifications). */
  readonly id: number | string;
  /** Everything up to this has been sent; null until the first read says where the stream stands. */
  cursor: number | null;
  /** Raised by `resume`: a read begun before it answers an older question and is not applied. */
  generation: number;
  /** The next read answers a resume: its frames are marked `replay`. */
  replay: boolean;
  /** Messages and notifications that came straight from the bus (or a read), so neither sends one twice. */
  sentIds: number[];
  closed: boolean;
  dirty: boolean;
  busy: boolean;
  idle: (() => void)[];
  send(message: WsServerMessage): void;
  isOpen(): boolean;
}

const SENT_IDS_KEPT = 200;

export function newStream(
  kind: StreamKind,
  key: string,
  id: number | string,
  io: { send(message: WsServerMessage): void; isOpen(): boolean },
  cursor: number | null = null,
): LiveStream {
  return {
    key,
    kind,
    id,
    cursor,
    generation: 0,
    replay: false,
    sentIds: [],
    closed: false,
    dirty: false,
    busy: false,
    idle: [],
    send: io.send,
    isOpen: io.isOpen,
  };
}

/** Remembers an id sent on a messages or notifications stream (bounded). */
export function noteSent(stream: LiveStream, id: number): void {
  stream.sentIds.push(id);
  if (stream.sentIds.length > SENT_IDS_KEPT) stream.sentIds.splice(0, stream.sentIds.length - SENT_IDS_KEPT);
}

export class StreamScheduler {
  private readonly pending = new Set<LiveStream>();
  private queued = false;

  constructor(
    private readonly reader: LiveStreamReader,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {}

  /** Marks the stream to be brought up to date (soon, together with every other marked one). */
  touch(stream: LiveStream): void {
    if (stream.closed) return;
    stream.dirty = true;
    this.pending.add(stream);
    this.schedule();
  }

  /** Resolves once the stream has no read pending or in flight (or is closed). */
  whenIdle(stream: LiveStream): Promise<void> {
    if (stream.closed || (!stream.dirty && !stream.busy)) return Promise.resolve();
    return new Promise((resolve) => stream.idle.push(resolve));
  }

  close(stream: LiveStream): void {
    stream.closed = true;
    this.pending.delete(stream);
    this.settle(stream);
  }

  private schedule(): void {
    if (this.queued) return;
    this.queued = true;
    setImmediate(() => void this.run());
  }

  private settle(stream: LiveStream): void {
    if (!stream.closed && (stream.dirty || stream.busy)) return;
    for (const resolve of stream.idle.splice(0)) resolve();
  }

  private async run(): Promise<void> {
    this.queued = false;
    const batch: LiveStream[] = [];
    for (const stream of this.pending) {
      if (stream.closed || !stream.isOpen()) {
        this.close(stream);
        continue;
      }
      if (stream.busy) continue;
      this.pending.delete(stream);
      stream.busy = true;
      stream.dirty = false;
      batch.push(stream);
    }
    if (batch.length === 0) return;
    const asked = batch.map((s) => ({ stream: s, since: s.cursor, generation: s.generation }));
    const of = (kind: StreamKind) => asked.filter((a) => a.stream.kind === kind);
    let failed = false;
    try {
      const accounts = of('account');
      const messages = of('messages');
      const notifications = of('notifications');
      const [a, m, n] = await Promise.all([
        this.reader.accounts(accounts.map((x) => ({ key: x.stream.id as number, since: x.since }))),
        this.reader.messages(messages.map((x) => ({ key: x.stream.id as string, since: x.since }))),
        this.reader.notifications(notifications.map((x) => ({ key: x.stream.id as string, since: x.since }))),
      ]);
      accounts.forEach((x, i) => this.apply(x, a[i] ?? null));
      messages.forEach((x, i) => this.apply(x, m[i]!));
      notifications.forEach((x, i) => this.apply(x, n[i]!));
    } catch (err) {
      failed = true;
      this.log.warn({ err, streams: batch.length }, 'live streams could not be read; retrying at the next resync');
      for (const s of batch) s.dirty = true;
    } finally {
      for (const s of batch) {
        s.busy = false;
        // Marked again meanwhile: read again (after a failure, the periodic resync does).
        if (s.dirty && !failed) this.pending.add(s);
        this.settle(s);
      }
    }
    if (this.pending.size > 0 && !failed) this.schedule();
  }

  private apply(
    asked: { stream: LiveStream; since: number | null; generation: number },
    read: StreamRead | null,
  ): void {
    const { stream, since } = asked;
    if (stream.closed || !stream.isOpen() || read === null) return;
    if (stream.generation !== asked.generation) {
      // A resume changed the question while this read was out: ask again.
      stream.dirty = true;
      return;
    }
    if (since === null || stream.cursor === null) {
      stream.cursor = read.seq;
      return;
    }
    if (read.refetch) {
      stream.send({ type: 'refetch', stream: stream.key, seq: read.seq });
      stream.cursor = read.seq;
      return;
    }
    for (const { ids, ...frame } of read.frames) {
      if (stream.kind !== 'account') {
        const told = ids ?? [frame.seq];
        if (told.every((id) => stream.sentIds.includes(id))) continue;
        for (const id of told) if (!stream.sentIds.includes(id)) noteSent(stream, id);
      }
      stream.send({ ...frame, stream: stream.key, ...(stream.replay ? { replay: true } : {}) });
    }
    stream.cursor = Math.max(stream.cursor, read.seq);
  }
}

/** A socket as the streams see it (the gateway's connection). */
export interface StreamHolder {
  streams: Map<string, LiveStream>;
  /** A client's own account stream. */
  own: LiveStream | null;
  /** Staff: the accounts watched (account id → the client's user id). */
  watched: Map<number, string>;
  /** How its frames go out, and whether it is still there. */
  io: { send(message: WsServerMessage): void; isOpen(): boolean };
}

export type StreamHeads = Awaited<ReturnType<LiveStreamReader['heads']>>;

/** Bus events that say a user's trading account changed: its streams are read again. */
const ACCOUNT_EVENTS = new Set<string>(['account.changed', 'trade.opened', 'trade.settled', 'balance.changed']);

/** The gateway's side of the streams: opening them, routing the bus's user events to them, resume and watch. */
export class LiveStreams {
  private readonly scheduler: StreamScheduler;

  constructor(reader: LiveStreamReader, log: { warn(obj: object, msg: string): void }) {
    this.scheduler = new StreamScheduler(reader, log);
  }

  /** A stream of the socket starting at `cursor` (null: its first read says where it stands). */
  open(holder: StreamHolder, kind: StreamKind, key: string, id: number | string, cursor: number | null): LiveStream {
    const existing = holder.streams.get(key);
    if (existing) this.scheduler.close(existing);
    const stream = newStream(kind, key, id, holder.io, cursor);
    holder.streams.set(key, stream);
    return stream;
  }

  /** A signed-in socket's own streams, from where they stood just before its upgrade. */
  openOwn(holder: StreamHolder, userId: string, staff: boolean, heads: StreamHeads): void {
    if (staff) {
      this.open(holder, 'notifications', LIVE_STREAM_NOTIFICATIONS, userId, heads.notifications);
      return;
    }
    this.open(holder, 'messages', LIVE_STREAM_MESSAGES, userId, heads.messages);
    if (heads.account)
      holder.own = this.open(
        holder,
        'account',
        liveAccountStream(heads.account.id),
        heads.account.id,
        heads.account.seq,
      );
  }

  remove(holder: StreamHolder, key: string): void {
    const stream = holder.streams.get(key);
    if (!stream) return;
    holder.streams.delete(key);
    this.scheduler.close(stream);
  }

  closeAll(holder: StreamHolder): void {
    for (const stream of holder.streams.values()) this.scheduler.close(stream);
    holder.streams.clear();
    holder.own = null;
  }

  /** Every stream of these sockets read again: after the bus was away, and every LIVE_RESYNC_MS. */
  resync(holders: Iterable<StreamHolder>): void {
    for (const holder of holders) for (const stream of holder.streams.values()) this.scheduler.touch(stream);
  }

  /**
   * A user's event from the bus. An account's (a hint) marks the owner's and the watchers' streams of it, unless they
   * are past its sequence. A message or notification goes out at once with its payload, each id once, but only the
   * database read moves the cursor: the bus may have lost earlier ids (committed, never announced), and a cursor moved
   * past them would skip them in every later read and resume. So the frame carries the cursor as it stands (what the
   * socket is known to have) and marks the stream; the read sends every id above the cursor not sent yet.
   */
  onUserEvent(
    event: { type: string; user_id: string; payload?: Record<string, unknown>; account_id?: number; seq?: number },
    owners: Iterable<StreamHolder>,
    watchers: Iterable<StreamHolder>,
  ): void {
    if (ACCOUNT_EVENTS.has(event.type)) {
      const seq = event.type === 'account.changed' ? event.seq : undefined;
      const streams: LiveStream[] = [];
      for (const holder of owners) {
        // A client whose trading account was opened after its socket: its stream from the account's beginning.
        if (!holder.own && event.account_id !== undefined && holder.streams.has(LIVE_STREAM_MESSAGES))
          holder.own = this.open(holder, 'account', liveAccountStream(event.account_id), event.account_id, 0);
        if (holder.own) streams.push(holder.own);
      }
      for (const holder of watchers)
        for (const [accountId, userId] of holder.watched) {
          const stream = userId === event.user_id ? holder.streams.get(liveAccountStream(accountId)) : undefined;
          if (stream) streams.push(stream);
        }
      for (const stream of streams)
        if (seq === undefined || stream.cursor === null || seq > stream.cursor) this.scheduler.touch(stream);
      return;
    }
    if ((event.type !== 'message.new' && event.type !== 'notification.new') || !event.payload) return;
    const key = event.type === 'message.new' ? LIVE_STREAM_MESSAGES : LIVE_STREAM_NOTIFICATIONS;
    const payload = event.payload as { id?: unknown; notification?: { id?: unknown } };
    const id = Number(event.type === 'message.new' ? payload.id : payload.notification?.id);
    for (const holder of owners) {
      const stream = holder.streams.get(key);
      if (!stream) continue;
      if (Number.isSafeInteger(id)) {
        if (stream.sentIds.includes(id)) continue;
        noteSent(stream, id);
      }
      stream.send({
        type: event.type,
        payload: event.payload,
        stream: key,
        ...(stream.cursor !== null ? { seq: stream.cursor } : {}),
      });
      this.scheduler.touch(stream);
    }
  }

  /**
   * `resume`: each stream named is moved back to the sequence given and read from there (frames marked `replay`); the
   * others are read as they are. Resolves with where every stream of the socket stands once all is sent.
   */
  async resume(holder: StreamHolder, cursors: Record<string, number>): Promise<Record<string, number>> {
    const streams = [...holder.streams.values()];
    for (const stream of streams) {
      const seq = cursors[stream.key];
      if (seq === undefined) continue;
      stream.cursor = seq;
      stream.generation += 1;
      stream.replay = true;
      this.scheduler.touch(stream);
    }
    await Promise.all(streams.map((stream) => this.scheduler.whenIdle(stream)));
    for (const stream of streams) stream.replay = false;
    return Object.fromEntries(streams.map((stream) => [stream.key, stream.cursor ?? 0]));
  }

  /** A watched account's stream, from `seq` (replayed first) or from where it stands; resolves once caught up. */
  async watch(holder: StreamHolder, accountId: number, seq: number | undefined): Promise<LiveStream> {
    const stream = this.open(holder, 'account', liveAccountStream(accountId), accountId, seq ?? null);
    stream.replay = seq !== undefined;
    this.scheduler.touch(stream);
    await this.scheduler.whenIdle(stream);
    stream.replay = false;
    return stream;
  }
}
