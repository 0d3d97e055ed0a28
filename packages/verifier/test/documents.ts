import { RefLog, newSigner, type RefHead, type RefTick, type Signer } from './reference.js';

/**
 * Proof documents (D27 version 1) built the way the server builds them, from the independent reference log: a market
 * of two symbols, a trade on EURUSD, and one head published after the expiry. Each case can be bent afterwards to
 * make one check fail.
 */

export const T = Date.UTC(2026, 0, 1, 12, 0, 0); // the trade opens at T + 500
export const EXPIRY = T + 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

export interface CaseSpec {
  direction?: 'call' | 'put';
  strike?: string;
  close?: string;
  /** How long before the expiry the close tick is (ms); over 10 s makes a gap. */
  closeAge?: number;
  amount_cents?: number;
  payout_percentage?: number;
}

export interface Case {
  log: RefLog;
  signer: Signer;
  head: RefHead;
  doc: ProofDoc;
}

export type ProofDoc = {
  format: string;
  version: number;
  trade: Record<string, unknown> & {
    status: string;
    profit_cents: number;
    credit_cents: number;
    close_price: string | null;
    close_at: string | null;
  };
  rule: { version: number; gap_seconds: number; text: { ru: string; en: string } };
  ticks: Record<'strike' | 'strike_next' | 'close' | 'close_next', (RefTick & { path: string[] }) | null>;
  head: RefHead;
  public_key: string;
  key_id: string;
};

export const RULE = {
  version: 1,
  gap_seconds: 10,
  text: {
    ru: 'Call выигрывает, если цена закрытия выше цены открытия; put — если ниже; равная цена — возврат ставки.',
    en: 'A call wins when the close is above the strike, a put when below; an equal price returns the stake.',
  },
};

/** The market up to and around one trade; `signer` may be shared to publish several heads of one log. */
export function market(spec: CaseSpec = {}, signer = newSigner()) {
  const log = new RefLog();
  log.add('GBPUSD', T - 1_000, '1.27000');
  log.add('EURUSD', T - 600, '1.08500');
  const strike = log.add('EURUSD', T + 200, spec.strike ?? '1.08520');
  log.add('GBPUSD', T + 300, '1.27010');
  const openedLogSize = log.ticks.length;
  const strikeNext = log.add('EURUSD', T + 700, '1.08525');
  log.add('EURUSD', T + 20_000, '1.08510');
  const closeAge = spec.closeAge ?? 400;
  log.add('EURUSD', EXPIRY - closeAge - 1_000, '1.08540');
  const close = log.add('EURUSD', EXPIRY - closeAge, spec.close ?? '1.08531');
  log.add('GBPUSD', EXPIRY - 100, '1.27030');
  const closeNext = log.add('EURUSD', EXPIRY + 400, '1.08529');
  log.add('GBPUSD', EXPIRY + 900, '1.27040');
  return { log, signer, strike, strikeNext, close, closeNext, openedLogSize };
}

export function document(
  log: RefLog,
  signer: Signer,
  head: RefHead,
  trade: ProofDoc['trade'],
  ticks: Record<'strike' | 'strike_next' | 'close' | 'close_next', RefTick | null>,
): ProofDoc {
  const withPath = (t: RefTick | null) => (t ? log.proofTick(t, head.tree_size) : null);
  return {
    format: 'brokerage-trade-proof',
    version: 1,
    trade,
    rule: RULE,
    ticks: {
      strike: withPath(ticks.strike),
      strike_next: withPath(ticks.strike_next),
      close: withPath(ticks.close),
      close_next: withPath(ticks.close_next),
    },
    head,
    public_key: signer.publicKey,
    key_id: signer.keyId,
  };
}

/** A settled trade whose stated result and amounts are the ones given (the test says which are right). */
export function settledCase(
  spec: CaseSpec & { status: string; profit_cents: number; credit_cents: number; priced?: boolean },
  signer?: Signer,
): Case {
  const m = market(spec, signer);
  const head = m.log.head(m.signer, m.log.ticks.length, EXPIRY + 2_000);
  const priced = spec.priced ?? spec.status !== 'no_price';
  const trade = {
    id: 4242,
    asset: 'EURUSD',
    direction: spec.direction ?? 'call',
    amount_cents: spec.amount_cents ?? 1_000,
    payout_percentage: spec.payout_percentage ?? 85,
    opened_at: iso(T + 500),
    opened_log_size: m.openedLogSize,
    strike_price: m.strike.price,
    strike_at: iso(m.strike.time_ms),
    expires_at: iso(EXPIRY),
    close_price: priced ? m.close.price : null,
    close_at: priced ? iso(m.close.time_ms) : null,
    status: spec.status,
    profit_cents: spec.profit_cents,
    credit_cents: spec.credit_cents,
    settled_at: iso(EXPIRY + 2_500),
  };
  const doc = document(m.log, m.signer, head, trade, {
    strike: m.strike,
    strike_next: m.strikeNext,
    close: m.close,
    close_next: m.closeNext,
  });
  return { log: m.log, signer: m.signer, head, doc };
}

export const wonCase = (signer?: Signer): Case =>
  settledCase({ direction: 'call', status: 'won', profit_cents: 850, credit_cents: 1_850 }, signer);
