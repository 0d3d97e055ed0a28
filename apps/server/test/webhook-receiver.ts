import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether X-Signature is the D17 signature of X-Timestamp and the raw body under the path's secret. */
  signatureValid: boolean | null;
}

/**
 * A partner's webhook endpoint on 127.0.0.1 for the tests: records every request, verifies the D17 signature the way a
 * partner would (its own HMAC over `<X-Timestamp>.<raw body>`, constant-time compare), and answers each path's
 * scripted statuses in turn (200 once the script is used up).
 */
export class WebhookReceiver {
  readonly requests: Received[] = [];
  private readonly scripts = new Map<string, number[]>();
  private readonly secrets = new Map<string, string>();
  private readonly waiters: { path: string; resolve: (r: Received) => void }[] = [];
  private server: http.Server | null = null;
  port = 0;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const body = Buffer.concat(chunks).toString('utf8');
        const received: Received = {
          path,
          method: req.method ?? '',
          headers: req.headers,
          body,
          signatureValid: this.verify(path, req.headers, body),
        };
        this.requests.push(received);
        const script = this.scripts.get(path) ?? [];
        const status = script.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status < 300 }));
        for (const w of this.waiters.filter((w) => w.path === path)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(received);
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The statuses the next requests to `path` get, in order. */
  script(path: string, statuses: number[]): void {
    this.scripts.set(path, [...statuses]);
  }

  /** The secret a partner keeps for `path` (shown once by the server). */
  trust(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  to(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves with the next request to `path`. */
  next(path: string): Promise<Received> {
    return new Promise((resolve) => this.waiters.push({ path, resolve }));
  }

  private verify(path: string, headers: http.IncomingHttpHeaders, body: string): boolean | null {
    const secret = this.secrets.get(path);
    if (secret === undefined) return null;
    const timestamp = headers['x-timestamp'];
    const signature = headers['x-signature'];
    if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
    const expected = Buffer.from(
      `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
      'utf8',
    );
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
