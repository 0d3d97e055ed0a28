/**
 * One client process of bench:ws: opens its share of the WebSocket clients (each from its own X-Forwarded-For
 * address), subscribes them, and counts the ticks they receive and each tick's latency (receive time − the tick's
 * `at`) in a histogram of 0.5 ms buckets. Driven by its parent over IPC.
 */
import WebSocket from 'ws';

type Command =
  | { cmd: 'open'; url: string; count: number; first: number }
  | { cmd: 'subscribe'; assets: string[] }
  | { cmd: 'measure'; seconds: number }
  | { cmd: 'close' };

const BUCKET_MS = 0.5;
const BUCKETS = 120_000; // up to 60 s
const sockets: WebSocket[] = [];
let counting = false;
let received = 0;
let hist = new Uint32Array(BUCKETS);

function onMessage(data: WebSocket.RawData): void {
  if (!counting) return;
  const message = JSON.parse(data.toString()) as { type: string; at?: string };
  if (message.type !== 'tick' || !message.at) return;
  received++;
  const ms = Date.now() - Date.parse(message.at);
  hist[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))]!++;
}

/** 10.x.y.z from a counter: distinct addresses so the per-address upgrade limit sees 5,000 visitors, not one. */
function address(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function open(url: string, count: number, first: number): Promise<void> {
  const batch = 100;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, k) => {
        const ws = new WebSocket(url, {
          headers: { 'x-forwarded-for': address(first + i + k + 1) },
          perMessageDeflate: false,
        });
        ws.on('message', onMessage);
        sockets.push(ws);
        return new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve());
          ws.once('error', reject);
          ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
        });
      }),
    );
  }
}

process.on('message', (raw) => {
  const command = raw as Command;
  void (async () => {
    try {
      if (command.cmd === 'open') {
        await open(command.url, command.count, command.first);
        process.send!({ ok: true, open: sockets.length });
      } else if (command.cmd === 'subscribe') {
        for (const ws of sockets) ws.send(JSON.stringify({ type: 'subscribe', assets: command.assets }));
        process.send!({ ok: true });
      } else if (command.cmd === 'measure') {
        received = 0;
        hist = new Uint32Array(BUCKETS);
        counting = true;
        await new Promise((r) => setTimeout(r, command.seconds * 1000));
        counting = false;
        // Only the non-empty buckets travel back.
        const buckets: [number, number][] = [];
        hist.forEach((n, i) => n && buckets.push([i, n]));
        process.send!({ ok: true, received, buckets, open: sockets.filter((s) => s.readyState === s.OPEN).length });
      } else if (command.cmd === 'close') {
        for (const ws of sockets) ws.terminate();
        process.send!({ ok: true });
        setTimeout(() => process.exit(0), 50);
      }
    } catch (err) {
      process.send!({ ok: false, error: String(err) });
    }
  })();
});
