import { z } from 'zod';
import { TRADE_DIRECTIONS } from './settlement.js';

/**
 * Issue 30 §2, decisions.md D27: the proof document (version 1) of one trade and the file of a period's proofs. A
 * third party checks them with nothing but the document and the public key (packages/verifier does). Integers are JSON
 * numbers (cents and sizes stay below 2^53); prices are decimal strings as stored, never numbers.
 */

/** A period's proofs file holds at most this many trades; a longer period is refused with 422. */
export const TRADE_PROOFS_MAX = 1000;

/** The version of the settlement rule a proof states (D1 with D22's gap rule). */
export const SETTLEMENT_RULE_VERSION = 1;

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));

export const PROOF_STATUSES = ['won', 'lost', 'tie', 'no_price', 'void'] as const;
export type ProofStatus = (typeof PROOF_STATUSES)[number];

export const proofTickSchema = z
  .object({
    index: z.number().int().min(0).describe("the tick's leaf index in the price log (0-based, storage order)"),
    symbol: z.string().describe('the symbol as traded (EURUSD)'),
    seq: z.number().int().min(1).describe("the symbol's tick count from 1, without gaps: seq + 1 is the next tick"),
    time_ms: z.number().int().describe("the tick's time, Unix milliseconds"),
    price: z.string().describe("the price as stored: a decimal string at the asset's decimals, trailing zeros kept"),
    path: z
      .array(hex(32))
      .describe("the RFC 6962 audit path of the leaf in the head's tree, leaf side first (lowercase hex)"),
  })
  .describe('A stored tick, a leaf of the price log: bytes `v1\\n<symbol>\\n<seq>\\n<time_ms>\\n<price>`');
export type ProofTick = z.infer<typeof proofTickSchema>;

export const proofHeadSchema = z
  .object({
    tree_size: z.number().int().min(1).describe('how many leaves the tree has'),
    time_ms: z.number().int().describe('when the head was signed, Unix milliseconds'),
    root: hex(32).describe('the Merkle tree hash (RFC 6962 MTH) of the first tree_size leaves'),
    signature: hex(64).describe(
      'Ed25519 over the 50 bytes 0x00 ‖ 0x01 ‖ uint64 time_ms ‖ uint64 tree_size ‖ root (big-endian)',
    ),
  })
  .describe('The signed tree head every audit path of the document leads to, published at or before the settlement');
export type ProofHead = z.infer<typeof proofHeadSchema>;

export const tradeProofSchema = z
  .object({
    format: z.literal('brokerage-trade-proof'),
    version: z.literal(1),
    trade: z.object({
      id: z.number().int(),
      asset: z.string(),
      direction: z.enum(TRADE_DIRECTIONS),
      amount_cents: z.number().int().describe('the stake, cents'),
      payout_percentage: z.number().int().describe('profit of a won trade as a percentage of the stake'),
      opened_at: z.iso.datetime().describe('ISO 8601: the moment the trade opened and its strike was taken'),
      opened_log_size: z
        .number()
        .int()
        .describe("the price log's size when the trade opened: the strike is among those leaves"),
      strike_price: z.string().describe('the strike price as stored (decimal string)'),
      strike_at: z.iso.datetime().describe("ISO 8601: the strike tick's time"),
      expires_at: z.iso.datetime(),
      close_price: z
        .string()
        .nullable()
        .describe('the last stored price at or before the expiry; null for no_price and void'),
      close_at: z.iso.datetime().nullable(),
      status: z.enum(PROOF_STATUSES).describe('void: voided by staff (a decision the proof cannot judge)'),
      profit_cents: z.number().int().describe('won: the profit; lost: −stake; tie, no_price, void: 0'),
      credit_cents: z
        .number()
        .int()
        .describe('what the settlement credited back (the ledger entry trade:<id>:settle): stake + profit, or 0'),
      settled_at: z.iso.datetime(),
    }),
    rule: z.object({
      version: z.literal(SETTLEMENT_RULE_VERSION),
      gap_seconds: z
        .number()
        .int()
        .describe('no stored price within this many seconds before the expiry: no_price, the stake returned'),
      text: z.object({ ru: z.string(), en: z.string() }).describe('the published rule for this direction'),
    }),
    ticks: z.object({
      strike: proofTickSchema.describe('the tick the trade opened at'),
      strike_next: proofTickSchema
        .nullable()
        .describe("the symbol's next tick (seq + 1): stored after the trade opened, so the strike was the newest"),
      close: proofTickSchema
        .nullable()
        .describe('the last tick of the symbol at or before the expiry (null: none at all; void: null)'),
      close_next: proofTickSchema
        .nullable()
        .describe("the symbol's next tick after the close (seq + 1), after the expiry (void: null)"),
    }),
    head: proofHeadSchema,
    public_key: hex(32).describe('the Ed25519 public key that signed the head, 32 raw bytes'),
    key_id: hex(8).describe('the first 16 hex digits of SHA-256 of the public key'),
  })
  .describe('The proof of one trade (decisions.md D27, version 1)');
export type TradeProof = z.infer<typeof tradeProofSchema>;

const instant = z.iso.datetime({ offset: true, error: 'invalid_value' });

export const tradeProofsQuerySchema = z.strictObject({
  from: instant.describe('start of the period (ISO 8601 with offset), inclusive').meta({
    example: '2026-11-01T00:00:00+05:00',
  }),
  to: instant.describe('end of the period (ISO 8601 with offset), exclusive').meta({
    example: '2026-12-01T00:00:00+05:00',
  }),
});
export type TradeProofsQuery = z.infer<typeof tradeProofsQuerySchema>;

export const tradeProofsBundleSchema = z
  .object({
    format: z.literal('brokerage-trade-proofs'),
    version: z.literal(1),
    from: z.string().describe('the period asked for, as given'),
    to: z.string(),
    proofs: z.array(tradeProofSchema).describe('the trades settled in the period, oldest settlement first'),
  })
  .describe('The proofs of a period in one file (decisions.md D27)');
export type TradeProofsBundle = z.infer<typeof tradeProofsBundleSchema>;
