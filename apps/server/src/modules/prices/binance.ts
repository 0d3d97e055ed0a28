import { findAsset, isDecimal, roundDecimal, compareDecimal } from '@brokerage/shared';
import WebSocket from 'ws';
import { systemClock, type Clock, type PriceSource, type PriceTick, type TickHandler } from './source.js';

/** Binance spot pairs quoted in USDT, mapped to the catalogue's USD symbols. */
export const BINANCE_PAIRS: Readonly<Record<string, string>> = {
  BTCUSDT: 'BTCUSD',
  ETHUSDT: 'ETHUSD',
  BNBUSDT: 'BNBUSD',
  ADAUSDT: 'ADAUSD',
  SOLUSDT: 'SOLUSD',
  XRPUSDT: 'XRPUSD',
  DOTUSDT: 'DOTUSD',
};

export const DEFAULT_BINANCE_URL = 'wss://stream.binance.com:9443';

/** The socket the adapter needs; `ws` in production, a fake in tests. */
export interface SocketLike {
  on(event: 'open', listener: () => void): unknown;
  on(event: 'message', listener: (data: WebSocket.RawData) => void): unknown;
  on(event: 'close', listener: (code: number) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  close(): void;
}

export interface BinanceOptions {
  url?: string;
  /** 'miniTicker' pushes each pair's last price once a second; 'trade' pushes every trade. */
  stream?: 'miniTicker' | 'trade';
  clock?: Clock;
  connect?: (url: string) => SocketLike;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** First reconnect delay; doubles up to 30 s while the feed keeps failing. */
  reconnectMs?: number;
}

/**
 * A real market-data adapter (decisions.md D2): Binance's public WebSocket market streams for the crypto symbols.
 * Prices are the exchange's last traded prices of the USDT pairs, rounded to the catalogue's decimals, and stamped
 * with the time this server received them, so they are on the same clock as the trades they open and settle.
 * Binance drops every connection after 24 h; the adapter reconnects with backoff.
 */
export class BinanceSource implements PriceSource {
  readonly name = 'binance';
  readonly symbols = Object.values(BINANCE_PAIRS);
  private readonly url: string;
  private readonly stream: 'miniTicker' | 'trade';
  private readonly clock: Clock;
  private readonly connect: (url: string) => SocketLike;
  private readonly log: BinanceOptions['log'];
  private readonly reconnectMs: number;
  private socket: SocketLike | null = null;
  private onTick: TickHandler | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(options: BinanceOptions = {}) {
    this.url = (options.url ?? DEFAULT_BINANCE_URL).replace(/\/+$/, '');
    this.stream = options.stream ?? 'miniTicker';
    this.clock = options.clock ?? systemClock;
    this.connect = options.connect ?? ((url) => new WebSocket(url, { handshakeTimeout: 10_000 }));
    this.log = options.log;
    this.reconnectMs = options.reconnectMs ?? 1000;
  }

  /** The combined-stream URL for every mapped pair. */
  streamUrl(): string {
    const streams = Object.keys(BINANCE_PAIRS).map((pair) => `${pair.toLowerCase()}@${this.stream}`);
    return `${this.url}/stream?streams=${streams.join('/')}`;
  }

  start(onTick: TickHandler): void {
    this.onTick = onTick;
    this.open();
  }

  stop(): void {
    this.onTick = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }

  /**
   * Turns one stream message into a tick, or null for anything that is not a price of a mapped pair (subscription
   * answers, errors, other events, malformed data). Accepts combined-stream envelopes ({stream, data}) and bare
   * events: 24hrMiniTicker (c), 24hrTicker (c), trade (p) and aggTrade (p).
   */
  parseMessage(raw: string | Buffer): PriceTick | null {
    let message: unknown;
    try {
      message = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
    } catch {
      return null;
    }
    if (typeof message !== 'object' || message === null) return null;
    const envelope = message as { data?: unknown };
    const event = (envelope.data && typeof envelope.data === 'object' ? envelope.data : message) as Record<
      string,
      unknown
    >;
    const pair = typeof event.s === 'string' ? event.s.toUpperCase() : '';
    const symbol = BINANCE_PAIRS[pair];
    if (!symbol) return null;
    let price: unknown;
    switch (event.e) {
      case '24hrMiniTicker':
      case '24hrTicker':
        price = event.c;
        break;
      case 'trade':
      case 'aggTrade':
        price = event.p;
        break;
      default:
        return null;
    }
    if (typeof price !== 'string' || !isDecimal(price) || compareDecimal(price, 0) <= 0) return null;
    const rounded = roundDecimal(price, findAsset(symbol)!.decimals);
    if (compareDecimal(rounded, 0) <= 0) return null;
    return { symbol, price: rounded, at: this.clock() };
  }

  /** The adapter's message handler: parse and pass the tick on. */
  handleMessage(raw: string | Buffer): void {
    const tick = this.parseMessage(raw);
    if (tick && this.onTick) this.onTick(tick);
  }

  private open(): void {
    if (!this.onTick) return;
    const socket = this.connect(this.streamUrl());
    this.socket = socket;
    socket.on('open', () => {
      this.failures = 0;
      this.log?.info({ source: this.name }, 'market data connected');
    });
    socket.on('message', (data) => {
      if (this.socket === socket)
        this.handleMessage(
          Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data),
        );
    });
    socket.on('error', (err) => this.log?.warn({ source: this.name, err: err.message }, 'market data error'));
    socket.on('close', (code) => {
      if (this.socket !== socket || !this.onTick) return;
      this.socket = null;
      this.failures += 1;
      const delay = Math.min(this.reconnectMs * 2 ** Math.min(this.failures - 1, 5), 30_000);
      this.log?.warn({ source: this.name, code, retryInMs: delay }, 'market data disconnected');
      this.retryTimer = setTimeout(() => this.open(), delay);
      this.retryTimer.unref();
    });
  }
}
