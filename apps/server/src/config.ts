import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import { STAFF_ROLES, type StaffRole } from '@brokerage/shared';
import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .default('0')
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** PRICE_LOG_KEY's check (modules/price-log/keys.ts reads it the same way: `\n` written out stands for a line break). */
function isEd25519PrivateKey(pem: string): boolean {
  try {
    return createPrivateKey({ key: pem.replace(/\\n/g, '\n'), format: 'pem' }).asymmetricKeyType === 'ed25519';
  } catch {
    return false;
  }
}

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Issue 21 §6: how long start-up waits for PostgreSQL to accept connections (with backoff) before giving up. */
  DB_STARTUP_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** Issue 21 §5: opening a PostgreSQL connection, or waiting for a free one of the pool, in ms. */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Issue 21 §5: the longest statement of a request or a job (PostgreSQL statement_timeout), in ms; 0 = none. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  /** The longest statement of an export or an import (SET LOCAL statement_timeout in their own work), in ms. */
  DB_BULK_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
  /** Issue 21 §5: an API request unanswered after this long is answered 503 with Retry-After, in ms. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** The same bound for the file routes (Excel exports, lead import, statement file), which stream for longer. */
  BULK_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(600_000),
  ADMIN_EMAIL: z
    .email()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  ADMIN_PASSWORD: z
    .string()
    .min(6)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  DEMO_DATA: bool,
  TRUST_PROXY: z.string().default('off'),
  BUSINESS_TIMEZONE: z
    .string()
    .default('Europe/Kyiv')
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'unknown IANA time zone'),
  STAFF_IDLE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15),
  CLIENT_SESSION_DAYS: z.coerce.number().int().min(1).max(90).default(7),
  /** Sign-in delays (D8 as amended): failures per (account, address) that cost nothing before the delays start. */
  LOGIN_FREE_FAILURES: z.coerce.number().int().min(0).max(100).default(3),
  /** The first delay, in seconds; each further failure doubles it. */
  LOGIN_DELAY_BASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(1),
  /** The longest delay, in seconds. */
  LOGIN_DELAY_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Failures from one address across all accounts before that address is slowed down as a whole. */
  LOGIN_IP_FREE_FAILURES: z.coerce.number().int().min(1).max(100_000).default(50),
  /** Failures older than this (no newer one) are forgotten, minutes. */
  LOGIN_FAILURE_WINDOW_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
  /**
   * Staff roles that must sign in with a second factor (TOTP), a comma list; empty = nobody. Unset: superadmin,admin,
   * or nobody when DEMO_DATA=1 (the demo logins stay one click).
   */
  REQUIRE_2FA_ROLES: z.string().optional(),
  LOGIN_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Requests per minute per client address over the whole API (429 with Retry-After beyond). */
  API_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** GET /api/prices/{symbol}/ticks (public quote history, issue 14): calls per minute per client address. */
  QUOTE_HISTORY_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
  /** Where prices come from: simulator | replay:<csv file> | binance | sources joined with '+' (binance+simulator). */
  PRICE_SOURCE: z
    .string()
    .default('simulator')
    .refine(
      (v) => v.split('+').every((p) => ['simulator', 'binance'].includes(p.trim()) || /^replay:.+/.test(p.trim())),
      "simulator, replay:<file>, binance, or several joined with '+'",
    ),
  BINANCE_WS_URL: z.string().url().default('wss://stream.binance.com:9443'),
  /** The expiry options offered, seconds, comma-separated; replaces client-platform.md §9's list. */
  TRADE_DURATIONS: z
    .string()
    .default('300,900,1800,3600,14400,86400,2592000')
    .transform((v, ctx) => {
      const list = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map(Number);
      if (list.length === 0 || list.some((n) => !Number.isSafeInteger(n) || n <= 0 || n > 31_536_000)) {
        ctx.addIssue({ code: 'custom', message: 'a comma list of whole seconds between 1 and 31536000' });
        return z.NEVER;
      }
      return [...new Set(list)].sort((a, b) => a - b);
    }),
  /** Live updates (D11): how often sockets are pinged (one missed pong closes them) and sessions re-checked. */
  WS_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  WS_SESSION_CHECK_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /**
   * Issue 21 §7: how often every open socket's streams (its account, messages, notifications) are read again from the
   * database, so an event whose announcement was lost (a publisher killed between its commit and its NOTIFY) still
   * arrives within this long.
   */
  LIVE_RESYNC_MS: z.coerce.number().int().min(100).max(300_000).default(2_000),
  /**
   * Several processes on PostgreSQL: how often a follower checks whether the leader of the price feed (and of the
   * postbacks) is gone: a crashed leader's session lock is seen free at the next check (issue 21 §4).
   */
  FEED_LEADER_RETRY_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /**
   * The leader's lease, in ms (renewed every third of it): a leader that stops renewing — stalled, starved, cut off —
   * is replaced once it runs out, and its writes are refused from then on (issue 21 §4).
   */
  FEED_LEASE_MS: z.coerce.number().int().min(300).max(60_000).default(3000),
  /**
   * How often this process settles due trades (after one run at start-up). Up to an hour: a process meant to answer
   * requests only (the others settle; the multi-process test runs one so) may wait that long between runs.
   */
  SETTLEMENT_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(500),
  /** Raw price ticks older than this are pruned (1-minute candles are kept); 0 keeps them all. */
  TICK_RETENTION_HOURS: z.coerce.number().int().min(0).default(48),
  /** D6: the operator's site content file (JSON); unset: the shipped apps/server/content/site.json. Re-read on change. */
  SITE_CONTENT_FILE: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim())),
  /** D14: where the economic calendar and fundamentals come from: snapshot (the shipped dated demo data) | finnhub. */
  MARKET_INFO_PROVIDER: z.enum(['snapshot', 'finnhub']).default('snapshot'),
  /** The Finnhub API key (MARKET_INFO_PROVIDER=finnhub); stays on the server, never logged nor sent to a browser. */
  FINNHUB_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim())),
  FINNHUB_BASE_URL: z.string().url().default('https://finnhub.io/api/v1'),
  /** How long the provider's answers are kept before asking again. */
  MARKET_INFO_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(900),
  /**
   * D7: the AES-256-GCM key for card numbers, 32 bytes in base64. Unset: a key file DATA_DIR/keys/card.key is created
   * on first use (mode 0600). Never stored in the database.
   */
  CARD_ENCRYPTION_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || (/^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32), {
      message: '32 bytes in base64 (e.g. `openssl rand -base64 32`)',
    }),
  /**
   * Issue 20 §7: the HMAC key of the audit chain, 32 bytes in base64. Unset: a key file DATA_DIR/keys/audit.key is
   * created on first use (mode 0600). Never stored in the database; the same on every process and the command line.
   */
  AUDIT_CHAIN_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || (/^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32), {
      message: '32 bytes in base64 (e.g. `openssl rand -base64 32`)',
    }),
  /**
   * D27: the price log's signing key, an Ed25519 private key in PKCS#8 PEM (`openssl genpkey -algorithm ed25519`; line
   * breaks may be written as `\n`). Unset: a key file DATA_DIR/keys/price-log-ed25519.pem is created on first use
   * (mode 0600). Every process over one database must use the same key. Never logged or stored in the database.
   */
  PRICE_LOG_KEY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || isEd25519PrivateKey(v), {
      message: 'an Ed25519 private key in PKCS#8 PEM (e.g. `openssl genpkey -algorithm ed25519`)',
    }),
  /** D17: the region of phones written without a country code (libphonenumber-js, ISO 3166 alpha-2). */
  DEFAULT_PHONE_REGION: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, 'a two-letter region code such as KZ')
    .default('KZ'),
  /**
   * Issue 22 §1: the SMTP server mail goes through, smtp:// or smtps:// with credentials in the URL
   * (smtps://user:pass@mail.example.com:465). Unset: mail is not sent but kept, and listed on /crm/outbox.
   */
  SMTP_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || /^smtps?:\/\/[^\s]+$/.test(v), {
      message: 'smtp://… or smtps://… (credentials in the URL: smtps://user:password@host:465)',
    }),
  /** Issue 22 §1: the From of every message ("Brokerage <no-reply@example.com>" or an address). */
  MAIL_FROM: z.string().trim().min(3).default('Brokerage <no-reply@localhost>'),
  /** Issue 22 §1: the site's address for links in mail (default http://localhost:$PORT); no trailing slash needed. */
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim().replace(/\/+$/, '')))
    .refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), { message: 'http(s)://host[:port][/path]' }),
  /** D17: lift the https and public-address rules for webhook URLs (tests, local setups). */
  ALLOW_PRIVATE_WEBHOOKS: bool,
  /** §9: the largest lead file accepted by POST /api/upload-clients, in MB. */
  UPLOAD_MAX_MB: z.coerce.number().positive().max(1024).default(10),
  /** Issue 20: the most a workbook (XLSX) upload may unpack to, all its parts together, in MB; past it a 400. */
  IMPORT_MAX_UNPACKED_MB: z.coerce.number().positive().max(4000).default(200),
  /** D13: calls per minute per affiliate token over the whole external API. */
  EXTERNAL_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Issue 9: the largest staff balance change of a trading account, in dollars (recorded deposits are not bounded by it). */
  MANUAL_CREDIT_MAX: z.coerce.number().positive().max(1_000_000_000).default(100_000),
  /** D20: a withdrawal above this many dollars needs a second approver with finance.approve; 0 turns it off. */
  WITHDRAWAL_SECOND_APPROVAL: z.coerce.number().min(0).max(1_000_000_000).default(1000),
  /** D20: a manual credit above this many dollars waits for a second staff member's confirmation; 0 turns it off. */
  MANUAL_CREDIT_SECOND_APPROVAL: z.coerce.number().min(0).max(1_000_000_000).default(1000),
});

export type TrustProxy = boolean | string | ((address: string, hop: number) => boolean);
export type Config = z.infer<typeof configSchema> & {
  dataDir: string;
  /** PUBLIC_URL, or http://localhost:$PORT: the base of every link in mail (no trailing slash). */
  publicUrl: string;
  trustProxy: TrustProxy;
  /** REQUIRE_2FA_ROLES parsed, with its default applied. */
  requireTwoFactorRoles: StaffRole[];
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.MARKET_INFO_PROVIDER === 'finnhub' && !c.FINNHUB_API_KEY)
    throw new Error('Invalid configuration:\n  FINNHUB_API_KEY: MARKET_INFO_PROVIDER=finnhub needs FINNHUB_API_KEY');
  const twoFactor = parseTwoFactorRoles(c.REQUIRE_2FA_ROLES, c.DEMO_DATA);
  if ('error' in twoFactor) throw new Error(`Invalid configuration:\n  REQUIRE_2FA_ROLES: ${twoFactor.error}`);
  return {
    ...c,
    dataDir: path.resolve(c.DATA_DIR),
    publicUrl: c.PUBLIC_URL ?? `http://localhost:${c.PORT}`,
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    requireTwoFactorRoles: twoFactor.roles,
  };
}

/** The start-up line about two-factor sign-in (who is asked, and why nobody is with DEMO_DATA=1). */
export function twoFactorBanner(config: Config): string {
  if (config.requireTwoFactorRoles.length > 0)
    return `Two-factor sign-in (TOTP) required for: ${config.requireTwoFactorRoles.join(', ')} (REQUIRE_2FA_ROLES).`;
  if (config.REQUIRE_2FA_ROLES === undefined && config.DEMO_DATA)
    return 'Two-factor sign-in is required of nobody: DEMO_DATA=1 makes the REQUIRE_2FA_ROLES default empty (set it to require it).';
  return 'Two-factor sign-in is required of nobody (REQUIRE_2FA_ROLES is empty); staff may still enroll from the user menu.';
}

/** REQUIRE_2FA_ROLES: a comma list of staff roles; empty = nobody; unset = superadmin,admin (nobody with DEMO_DATA). */
function parseTwoFactorRoles(v: string | undefined, demo: boolean): { roles: StaffRole[] } | { error: string } {
  if (v === undefined) return { roles: demo ? [] : ['superadmin', 'admin'] };
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = list.filter((r) => !(STAFF_ROLES as readonly string[]).includes(r));
  if (unknown.length > 0) return { error: `not staff roles: ${unknown.join(', ')} (one of ${STAFF_ROLES.join(', ')})` };
  return { roles: [...new Set(list)] as StaffRole[] };
}

/** TRUST_PROXY: off (default), on (trust every hop), a hop count, or a comma list of proxy addresses/CIDRs. */
function parseTrustProxy(v: string): TrustProxy {
  const s = v.trim().toLowerCase();
  if (['', 'off', '0', 'false', 'no'].includes(s)) return false;
  if (['on', 'true', 'yes'].includes(s)) return true;
  if (/^\d+$/.test(s)) {
    const hops = Number(s);
    return (_address, hop) => hop < hops;
  }
  return v;
}
