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
