import WebSocket from 'ws';

export interface LiveFrame {
  type: string;
  [key: string]: unknown;
}

/** A test's WebSocket client: every frame received is kept, and `next` awaits one that matches (no sleeping). */
export interface LiveClient {
  ws: WebSocket;
  frames: LiveFrame[];
  send(message: unknown): void;
  next(match: (f: LiveFrame) => boolean, timeoutMs?: number, label?: string): Promise<LiveFrame>;
  /** Resolves with the close code. */
  closed: Promise<number>;
  close(): void;
}

export async function connectLive(url: string, headers: Record<string, string> = {}): Promise<LiveClient> {
  const ws = new WebSocket(url, { headers });
  const frames: LiveFrame[] = [];
  const waiters: { match: (f: LiveFrame) => boolean; from: number; resolve: (f: LiveFrame) => void }[] = [];
  let consumed = 0;
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as LiveFrame;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.match(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return {
    ws,
    frames,
    closed,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    next(match, timeoutMs = 10_000, label = 'frame') {
      // Frames already received after the last one consumed count too.
      const seen = frames.slice(consumed).find(match);
      if (seen) {
        consumed = frames.indexOf(seen, consumed) + 1;
        return Promise.resolve(seen);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${label} within ${timeoutMs} ms; got ${JSON.stringify(frames.slice(-5))}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          from: consumed,
          resolve: (f) => {
            clearTimeout(timer);
            consumed = frames.length;
            resolve(f);
          },
        });
      });
    },
    close: () => ws.close(),
  };
}

/** A socket that comes back on its own (resumingSocket): every frame of every connection it made. */
export interface ResumingSocket {
  frames: LiveFrame[];
  /** How many times it connected again after its socket closed. */
  reconnects(): number;
  /** The ids of the trades it was told settled. */
  settled(): Set<number>;
  stop(): Promise<void>;
}

/**
 * A live socket that comes back, as the web client does: when its socket closes it connects again (to the address
 * `target` gives then: a load balancer's, or another process's) and sends `resume` with the last sequence it saw of
 * each stream, so the server replays what it missed.
 */
export function resumingSocket(target: string | (() => string)): ResumingSocket {
  const frames: LiveFrame[] = [];
  const seqs: Record<string, number> = {};
  let stopped = false;
  let reconnects = 0;
  let stop!: () => void;
  const stopping = new Promise<void>((resolve) => (stop = resolve));
  const run = async () => {
    while (!stopped) {
      const socket = await connectLive(typeof target === 'string' ? target : target()).catch(() => null);
      if (!socket) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      socket.ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as LiveFrame;
        frames.push(f);
        if (typeof f.stream === 'string' && typeof f.seq === 'number') seqs[f.stream] = f.seq;
        if (f.type === 'resumed') {
          // A stream first heard of here starts where the server stands.
          for (const [k, v] of Object.entries(f.streams as Record<string, number>)) seqs[k] ??= v;
        }
      });
      socket.send({ type: 'resume', streams: { ...seqs } });
      const closed = await Promise.race([socket.closed.then(() => true), stopping.then(() => false)]);
      if (closed) reconnects++;
      else socket.close();
    }
  };
  const done = run();
  return {
    frames,
    reconnects: () => reconnects,
    settled: () =>
      new Set(
        frames.filter((f) => f.type === 'trade.settled').map((f) => (f.payload as { trade: { id: number } }).trade.id),
      ),
    async stop() {
      stopped = true;
      stop();
      await done;
    },
  };
}
