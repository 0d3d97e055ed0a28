import type { ColumnType, Generated, Insertable, Selectable, Transaction, Updateable } from 'kysely';
import type { Role } from '@brokerage/shared';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A nullable timestamp with a default (null): optional on insert. */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json = ColumnType<unknown, string | undefined | null, string | null>;

export interface UsersTable {
  id: Generated<string>;
  email: string;
  name: string;
  role: Role;
  department: 'sales' | 'retention' | null;
  phone: string | null;
  password_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  last_login_at: Timestamp | null;
  /** Issue 22: when the address was proven (null: not yet); accounts older than the migration count as verified. */
  email_verified_at: OptionalTimestamp;
  email_verified_by_migration: Generated<boolean>;
  /** The language of this user's mail (clients: the one they registered in; staff: ru). */
  language: Generated<MailLanguage>;
  /** No mail but security mail (the profile's switch). */
  mail_opt_out: Generated<boolean>;
  /** Staff: the daily digest of due reminders. */
  digest_opt_in: Generated<boolean>;
  /** Issue 27 item 11: a client's short account number (eight digits, given by a trigger on insert); staff: null. */
  platform_id: Generated<string | null>;
  /** A staff member invited without a password, until they set one (password_hash is then INVITED_PASSWORD_HASH). */
  invited_at: OptionalTimestamp;
}

export type MailLanguage = 'ru' | 'en' | 'kk';

/** Issue 22: single-use links (verify_email, password_reset, invitation) and the reusable unsubscribe link. */
export interface AuthTokensTable {
  id: GeneratedBigint;
  /** SHA-256 (hex) of the token; the token itself is only in the link. */
  token_hash: string;
  purpose: 'verify_email' | 'password_reset' | 'invitation' | 'unsubscribe';
  user_id: string;
  email: string | null;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  revoked_at: OptionalTimestamp;
  created_at: Generated<Timestamp>;
  ip: string | null;
}

/** Issue 22: public mail-sending requests, counted per typed address and per client address. */
export interface AuthRequestsTable {
  id: GeneratedBigint;
  kind: 'password_reset';
  email_key: string;
  ip: string;
  created_at: Generated<Timestamp>;
}

export type MailCategory = 'security' | 'transactional' | 'bulk';
export type MailStatus = 'kept' | 'pending' | 'sent' | 'failed';

/** Issue 22 §1: the mail outbox (written in the transaction of the action; delivered by the leader's mail worker). */
export interface MailOutboxTable {
  id: GeneratedBigint;
  message_id: string;
  user_id: string | null;
  to_address: string;
  template: string;
  category: MailCategory;
  language: MailLanguage;
  subject: string;
  text_body: string;
  html_body: string;
  headers: Generated<Record<string, string>>;
  status: MailStatus;
  attempts: Generated<number>;
  next_attempt_at: Generated<Timestamp>;
  last_attempt_at: Timestamp | null;
  last_error: string | null;
  sent_at: Timestamp | null;
  created_at: Generated<Timestamp>;
}

export interface SessionsTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  idle_seconds: number;
  ip: string | null;
  user_agent: string | null;
  revoked_at: Timestamp | null;
}

/** Sign-in delays and two-factor sign-in (migration 0016). */
export interface SignInFailuresTable {
  email_key: string;
  ip: string;
  failures: number;
  last_failed_at: Timestamp;
}

export interface SignInIpFailuresTable {
  ip: string;
  failures: number;
  last_failed_at: Timestamp;
}

export interface SignInNoticesTable {
  user_id: string;
  failures: number;
  last_at: Timestamp;
  last_ip: string | null;
}

export interface TwoFactorTable {
  user_id: string;
  secret_enc: string;
  confirmed_at: Timestamp | null;
  /** bigint: the newest accepted 30-second step. */
  last_step: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  created_at: Generated<Timestamp>;
  /** Issue 20 §8: wrong codes (and codes being checked) of this account since code_failures_since (one hour). */
  code_failures: Generated<number>;
  code_failures_since: Timestamp | null;
}

export interface TwoFactorRecoveryCodesTable {
  id: Generated<string>;
  user_id: string;
  code_hash: string;
  used_at: Timestamp | null;
}

export interface LoginChallengesTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  purpose: 'enroll' | 'otp';
  expires_at: Timestamp;
  used_at: Timestamp | null;
  /** Issue 20 §8: codes tried on this challenge, counted before each is checked (migration 0023). */
  attempts: Generated<number>;
  ip: string | null;
  created_at: Generated<Timestamp>;
}

export interface IpWhitelistTable {
  id: Generated<number>;
  ip_address: string;
  description: string;
  created_at: Timestamp;
  created_by: string | null;
}

export interface AuditLogTable {
  id: Generated<string>; // bigint
  at: Timestamp;
  actor_id: string | null;
  actor_name: string | null;
  actor_role: string | null;
  action: string;
  entity_type: string | null;
  entity_id: string | null;
  before: Json;
  after: Json;
  ip: string | null;
  /**
   * Issue 13: place in the tamper-evident chain, stamped at commit (migration 0018); since issue 20 §7 by the server's
   * driver with the chain key (platform/audit/stamping.ts), by the deferred trigger only for rows written past it.
   */
  seq: ColumnType<string | null, never, never>; // bigint
  prev_hash: ColumnType<string | null, never, never>;
  hash: ColumnType<string | null, never, never>;
}

export interface ClientsTable {
  id: Generated<number>;
  name: string;
  email: string;
  phone: string;
  country: string;
  campaign: string;
  source: string;
  notes: string;
  status: string;
  assigned_manager: string | null;
  affiliate_id: Bigint | null;
  user_id: string | null;
  ftd: Generated<boolean>;
  total_deposits_cents: Generated<string>; // bigint
  created_at: Timestamp;
  updated_at: Timestamp;
  registration_date: Timestamp | null;
  last_comment_date: Timestamp | null;
  /** D17: the phone as E.164 (null when it cannot be parsed; such a lead never matches by phone). */
  phone_e164: string | null;
  /** Lead-provider fields of §3 (lead-ads: ad_name, utm_source, utm_campaign; search-ads: keyword, region, device, utm_*). */
  ad_name: string | null;
  utm_source: string | null;
  utm_campaign: string | null;
  utm_medium: string | null;
  keyword: string | null;
  region: string | null;
  device: string | null;
  /** Issue 9 finding 1: false for a self-registration linked to an existing lead until a finance approver confirms it. */
  identity_verified: Generated<boolean>;
  identity_verified_at: Timestamp | null;
  identity_verified_by: string | null;
  /** Issue 20 finding 1: who created the client's login on the card ('Register user'); null for a self-registration. */
  login_created_by: Generated<string | null>;
}

/** A bigint column: the pg driver returns a string, PGlite a number; services read it with Number(). */
type Bigint = ColumnType<string | number, string | number, string | number>;
type GeneratedBigint = ColumnType<string | number, string | number | undefined, string | number>;
/** An exact numeric (prices): a decimal string both ways. */
type Numeric = ColumnType<string, string, string>;

export interface TradingAccountsTable {
  id: GeneratedBigint;
  client_id: Bigint;
  user_id: string;
  balance_cents: GeneratedBigint;
  status: Generated<'active' | 'blocked' | 'demo'>;
  trading_enabled: Generated<boolean>;
  max_trade_amount_cents: GeneratedBigint;
  payout_percentage: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_activity: Timestamp | null;
  /** Issue 21 §7: raised by every transaction that changes the account (migration 0026, the live-update sequence). */
  live_seq: GeneratedBigint;
}

export type LedgerKind =
  | 'deposit'
  | 'deposit_correction'
  | 'withdrawal_hold'
  | 'withdrawal_release'
  | 'trade_stake'
  | 'trade_payout'
  | 'trade_refund'
  | 'adjustment';

export interface LedgerEntriesTable {
  id: GeneratedBigint;
  account_id: Bigint;
  kind: LedgerKind;
  amount_cents: Bigint;
  balance_after_cents: Bigint;
  reference: string;
  actor_id: string | null;
  reason: string | null;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  user_id: string;
  route: string;
  key: string;
  request_hash: string;
  response_status: number;
  response_body: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface PriceTicksTable {
  id: GeneratedBigint;
  symbol: string;
  price: Numeric;
  at: Timestamp;
  /** The tick's leaf in the price log (D27, migration 0028): index from 0 in storage order, symbol's count from 1. */
  log_index: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  symbol_seq: ColumnType<string | null, string | number | null | undefined, string | number | null>;
}

/** D27: the hash of each complete perfect subtree of the price log (level 0: the leaf hashes). */
export interface PriceLogNodesTable {
  level: number;
  idx: ColumnType<string, string | number, string | number>;
  hash: Buffer;
}

/** D27: the log's one state row: leaves appended (`size`) and internal nodes written up to `hashed_size`. */
export interface PriceLogStateTable {
  id: number;
  size: ColumnType<string, string | number, string | number>;
  hashed_size: ColumnType<string, string | number | undefined, string | number>;
}

export interface PriceLogSymbolsTable {
  symbol: string;
  last_seq: ColumnType<string, string | number, string | number>;
}

/** D27: every key that signed a head (a proof of an old trade names its head's key after the key was replaced). */
export interface PriceLogKeysTable {
  key_id: string;
  public_key: Buffer;
  created_at: Generated<Date>;
}

/** D27: a signed tree head. */
export interface PriceLogHeadsTable {
  tree_size: ColumnType<string, string | number, string | number>;
  time_ms: ColumnType<string, string | number, string | number>;
  root: Buffer;
  signature: Buffer;
  key_id: string;
}

export interface Candles1mTable {
  symbol: string;
  minute: Timestamp;
  open: Numeric;
  high: Numeric;
  low: Numeric;
  close: Numeric;
}

/** Hourly candles kept beside candles_1m by the tick flush (issue 20 §6, migration 0022). */
export interface Candles1hTable {
  symbol: string;
  hour: Timestamp;
  open: Numeric;
  high: Numeric;
  low: Numeric;
  close: Numeric;
}

/** Single-leader jobs' leases and the price feed's durable watermark (migration 0025, D22). */
export interface LeaderLeasesTable {
  name: string;
  holder: Generated<string>;
  fence: Generated<Bigint>;
  expires_at: Generated<Timestamp>;
  locked: Generated<boolean>;
  watermark: Timestamp | null;
}

export interface TradesTable {
  id: GeneratedBigint;
  account_id: Bigint;
  asset: string;
  direction: 'call' | 'put';
  amount_cents: Bigint;
  duration_seconds: number;
  payout_percentage: number;
  strike_price: Numeric;
  strike_at: Timestamp;
  expires_at: Timestamp;
  status: Generated<'active' | 'won' | 'lost' | 'tie' | 'no_price' | 'voided'>;
  close_price: Numeric | null;
  close_at: Timestamp | null;
  profit_cents: Bigint | null;
  settled_at: Timestamp | null;
  /** Settled by the demo seed's backfill, not the live worker (issue 15: left out of the landing's figure). */
  backfilled: Generated<boolean>;
  void_reason: string | null;
  voided_by: string | null;
  created_at: Timestamp;
  /** The account's live_seq of the transaction that placed the trade, and of its latest change (migration 0026). */
  opened_seq: GeneratedBigint;
  /** The price log's size when the trade opened (D27, migration 0028); null before the log existed. */
  opened_log_size: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  live_seq: GeneratedBigint;
}

export interface WithdrawRequestsTable {
  id: GeneratedBigint;
  client_id: Bigint;
  account_id: Bigint;
  user_id: string;
  amount_cents: Bigint;
  card_holder: string;
  card_last4: string;
  /** AES-256-GCM ciphertext (platform/crypto/vault.ts); never the clear number. */
  card_number_enc: string;
  card_expiry: string;
  status: Generated<'pending' | 'awaiting_second_approval' | 'approved' | 'rejected'>;
  /** Four-eyes (D20): who gave the first of two approvals, and when. */
  first_approved_by: Generated<string | null>;
  first_approved_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  processed_by: string | null;
  processed_at: Timestamp | null;
  reject_reason: string | null;
  created_at: Timestamp;
}

export interface DepositMethodsTable {
  id: Generated<number>;
  type: 'visa_mastercard' | 'bank_card' | 'crypto' | 'other';
  title: string;
  description: Generated<string>;
  details: Generated<string>;
  enabled: Generated<boolean>;
  sort: Generated<number>;
  updated_at: Timestamp;
  updated_by: string | null;
}

export interface ClientMessagesTable {
  id: GeneratedBigint;
  client_id: Bigint;
  user_id: string;
  content: string;
  created_by: string | null;
  created_at: Timestamp;
  read_at: Timestamp | null;
  /** Issue 22 §6: staff → client, or client → staff (created_by is then the client user; read_at when staff read it). */
  direction: Generated<'staff' | 'client'>;
}

export interface DepositsTable {
  id: GeneratedBigint;
  client_id: Bigint;
  amount_cents: Bigint;
  deposit_type: 'ftd' | 'reload';
  notes: Generated<string>;
  created_by: string | null;
  created_by_name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  credited_at: Timestamp | null;
  revision: Generated<number>;
  /** The client's assigned manager when the deposit was made (the dashboard's attribution, issue 11). */
  attributed_manager: Generated<string | null>;
}

/** D20: a manual credit waiting for (or given, or refused) a second staff member's confirmation. */
export interface ManualCreditsTable {
  id: GeneratedBigint;
  kind: 'balance_change' | 'deposit' | 'deposit_edit';
  status: Generated<'pending' | 'confirmed' | 'cancelled'>;
  client_id: Bigint;
  account_id: Bigint | null;
  deposit_id: Bigint | null;
  amount_cents: Bigint;
  requested_action: string | null;
  requested_amount_cents: Bigint | null;
  reason: Generated<string>;
  created_by: string | null;
  created_by_name: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  decided_by: Generated<string | null>;
  decided_by_name: Generated<string | null>;
  decided_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  cancel_reason: Generated<string | null>;
  ledger_entry_id: ColumnType<string | number | null, string | number | null | undefined, string | number | null>;
  /** Issue 20 finding 2: the credit that replaced this one when its deposit's amount was edited while it waited. */
  replaced_by: ColumnType<string | number | null, string | number | null | undefined, string | number | null>;
}

/**
 * Issue 20 finding 11: a void of an active trade waiting for a second staff member (migrations 0024, 0027). Its
 * account is its trade's. A stored 'pending' whose trade expired or settled reads as lapsed (void-requests.ts).
 */
export interface TradeVoidRequestsTable {
  id: GeneratedBigint;
  trade_id: Bigint;
  status: Generated<'pending' | 'confirmed' | 'rejected' | 'lapsed' | 'withdrawn'>;
  reason: string;
  requested_by: string | null;
  requested_by_name: string;
  requested_at: ColumnType<Date, Date | string | undefined, Date | string>;
  decided_by: Generated<string | null>;
  decided_by_name: Generated<string | null>;
  decided_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  reject_reason: Generated<string | null>;
  ledger_entry_id: ColumnType<string | number | null, string | number | null | undefined, string | number | null>;
}

export interface CommentsTable {
  id: GeneratedBigint;
  client_id: Bigint;
  text: string;
  is_pinned: Generated<boolean>;
  user_id: string | null;
  user_name: string;
  created_at: Timestamp;
}

export interface RemindersTable {
  id: GeneratedBigint;
  client_id: Bigint;
  title: string;
  description: Generated<string>;
  scheduled_time: Timestamp;
  status: Generated<'pending' | 'completed' | 'cancelled'>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface NotificationsTable {
  id: GeneratedBigint;
  user_id: string;
  type:
    | 'client_assigned'
    | 'reminder_upcoming'
    | 'reminder_due'
    | 'withdrawal_request'
    | 'deposit_intent'
    | 'client_message';
  client_id: Bigint | null;
  client_name: string | null;
  reminder_id: Bigint | null;
  reminder_title: string | null;
  scheduled_time: Timestamp | null;
  amount_cents: Bigint | null;
  withdrawal_id: Bigint | null;
  /** Deposit intents (D21): the chosen payment method's title. */
  method_title: Generated<string | null>;
  dedupe_key: string | null;
  read_at: Timestamp | null;
  published_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface AffiliatesTable {
  id: GeneratedBigint;
  name: string;
  contact_person: Generated<string>;
  contact_email: Generated<string>;
  description: Generated<string>;
  webhook_url: string | null;
  signing_secret_enc: string | null;
  status: Generated<'active' | 'inactive' | 'paused'>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Timestamp | null;
}

export interface AffiliateTokensTable {
  id: GeneratedBigint;
  affiliate_id: Bigint;
  name: string;
  /** SHA-256 (hex) of the token; the token itself is never stored (D17). */
  token_hash: string;
  token_prefix: string;
  token_suffix: string;
  ip_whitelist: ColumnType<string[], string[] | undefined, string[]>;
  created_by: string | null;
  created_at: Generated<Date>;
  last_used: Timestamp | null;
  revoked_at: Timestamp | null;
  /** The rate limit's theoretical arrival time (migration 0010, D13). */
  rate_tat: Timestamp | null;
}

export interface ExternalIdempotencyKeysTable {
  token_id: Bigint;
  route: string;
  key: string;
  request_hash: string;
  response_status: number;
  response_body: Json;
  created_at: Generated<Date>;
}

export type PostbackEvent = 'LEAD' | 'REGISTRATION' | 'PURCHASE' | 'ADD_TO_CART' | 'STATUS';

export interface PostbackEventsTable {
  id: GeneratedBigint;
  affiliate_id: Bigint;
  client_id: Bigint;
  event: PostbackEvent;
  payload: Json;
  /** Stable across retries, sent as X-Event-Id and body event_id (issue 20 §11, migration 0022). */
  event_id: Generated<string>;
  status: Generated<'pending' | 'delivered' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface LeadImportsTable {
  id: Generated<string>;
  created_by: string | null;
  file_name: string;
  total_processed: number;
  clients_created: number;
  duplicates_found: number;
  skipped_incomplete: number;
  rejected_csv: Generated<string>;
  created_at: Generated<Date>;
}

/** The dashboard's daily rollups (migration 0015), kept by triggers on clients and deposits. */
export interface DashboardClientsDailyTable {
  day: ColumnType<string, string, string>;
  assigned_manager: string | null;
  affiliate_id: Bigint | null;
  suffix: string | null;
  campaign: string;
  status: string;
  ftd: boolean;
  clients: number;
}

export interface DashboardDepositsDailyTable {
  day: ColumnType<string, string, string>;
  attributed_manager: string | null;
  assigned_manager: string | null;
  affiliate_id: Bigint | null;
  suffix: string | null;
  campaign: string;
  deposits: number;
  cents: Bigint;
}

export interface DashboardSettingsTable {
  id: Generated<boolean>;
  timezone: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  auth_tokens: AuthTokensTable;
  auth_requests: AuthRequestsTable;
  mail_outbox: MailOutboxTable;
  sign_in_failures: SignInFailuresTable;
  sign_in_ip_failures: SignInIpFailuresTable;
  sign_in_notices: SignInNoticesTable;
  two_factor: TwoFactorTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  login_challenges: LoginChallengesTable;
  ip_whitelist: IpWhitelistTable;
  audit_log: AuditLogTable;
  clients: ClientsTable;
  trading_accounts: TradingAccountsTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  price_ticks: PriceTicksTable;
  price_log_nodes: PriceLogNodesTable;
  price_log_state: PriceLogStateTable;
  price_log_symbols: PriceLogSymbolsTable;
  price_log_heads: PriceLogHeadsTable;
  price_log_keys: PriceLogKeysTable;
  candles_1m: Candles1mTable;
  candles_1h: Candles1hTable;
  trades: TradesTable;
  leader_leases: LeaderLeasesTable;
  withdraw_requests: WithdrawRequestsTable;
  deposit_methods: DepositMethodsTable;
  client_messages: ClientMessagesTable;
  deposits: DepositsTable;
  comments: CommentsTable;
  reminders: RemindersTable;
  notifications: NotificationsTable;
  deposit_intents: DepositIntentsTable;
  affiliates: AffiliatesTable;
  affiliate_tokens: AffiliateTokensTable;
  external_idempotency_keys: ExternalIdempotencyKeysTable;
  postback_events: PostbackEventsTable;
  lead_imports: LeadImportsTable;
  dashboard_clients_daily: DashboardClientsDailyTable;
  dashboard_deposits_daily: DashboardDepositsDailyTable;
  /** The same, one row per month (`day` = its first day). */
  dashboard_clients_monthly: DashboardClientsDailyTable;
  dashboard_deposits_monthly: DashboardDepositsDailyTable;
  dashboard_settings: DashboardSettingsTable;
  manual_credits: ManualCreditsTable;
  trade_void_requests: TradeVoidRequestsTable;
}

/** A transaction over the database: what every function that must run inside its caller's transaction takes. */
export type Trx = Transaction<Database>;

/** D21: a client's confirmed top-up, for staff to follow up (migration 0019). Not money. */
export interface DepositIntentsTable {
  id: GeneratedBigint;
  client_id: Bigint;
  user_id: string;
  amount_cents: Bigint;
  method_id: Bigint | null;
  method_title: string;
  created_at: Timestamp;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type TradingAccountRow = Selectable<TradingAccountsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type TradeRow = Selectable<TradesTable>;
