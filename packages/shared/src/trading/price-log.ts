import { z } from 'zod';

/**
 * Issue 30 §1, decisions.md D27: the price log's public answers — its key, its signed tree heads and consistency
 * proofs between two of them. Hashes and signatures are lowercase hex; sizes and times are JSON numbers.
 */

/** GET /api/price-log/heads answers at most this many heads per page (default PRICE_LOG_HEADS_DEFAULT). */
export const PRICE_LOG_HEADS_MAX = 500;
export const PRICE_LOG_HEADS_DEFAULT = 100;

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
/** A tree size in a query: a whole number of leaves (sizes stay below 2^53). */
const treeSize = (what: string) =>
  z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .min(0, { error: 'invalid_value' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'invalid_value' })
    .describe(what);

const EXAMPLE_HEAD = {
  tree_size: 1024,
  time_ms: 1767225600000,
  root: '5f0c3a1e9b7d2c4f6a8e0b1d3c5e7f9a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e',
  signature: `${'3a'.repeat(32)}${'c4'.repeat(32)}`,
  key_id: '9f86d081884c7d65',
};

export const priceLogHeadSchema = z
  .object({
    tree_size: z.number().int().min(1).describe('how many leaves (stored ticks) the tree has'),
    time_ms: z.number().int().describe('when the head was signed, Unix milliseconds'),
    root: hex(32).describe('RFC 6962 Merkle tree hash of the first tree_size leaves'),
    signature: hex(64).describe(
      'Ed25519 over the 50 bytes 0x00 ‖ 0x01 ‖ uint64 time_ms ‖ uint64 tree_size ‖ root (big-endian)',
    ),
    key_id: hex(8).describe('the signing key: the first 16 hex digits of SHA-256 of its raw public key'),
  })
  .describe('A signed tree head of the price log')
  .meta({ example: EXAMPLE_HEAD });
export type PriceLogHead = z.infer<typeof priceLogHeadSchema>;

export const priceLogKeySchema = z
  .object({
    algorithm: z.literal('Ed25519'),
    public_key: hex(32).describe('the 32 raw bytes of the Ed25519 public key'),
    key_id: hex(8).describe('the first 16 hex digits of SHA-256 of public_key'),
    pem: z.string().describe('the same key as a SubjectPublicKeyInfo PEM'),
  })
  .meta({
    example: {
      algorithm: 'Ed25519',
      public_key: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      key_id: EXAMPLE_HEAD.key_id,
      pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n',
    },
  });
export type PriceLogKey = z.infer<typeof priceLogKeySchema>;

export const priceLogHeadsQuerySchema = z.strictObject({
  from: treeSize('the smallest tree size to list (inclusive)').optional(),
  to: treeSize('the largest tree size to list (inclusive)').optional(),
  limit: z.coerce
    .number({ error: 'invalid_value' })
    .int({ error: 'invalid_value' })
    .min(1, { error: 'invalid_value' })
    .max(PRICE_LOG_HEADS_MAX, { error: 'invalid_value' })
    .default(PRICE_LOG_HEADS_DEFAULT)
    .describe(`heads per page, at most ${PRICE_LOG_HEADS_MAX}`),
});
export type PriceLogHeadsQuery = z.infer<typeof priceLogHeadsQuerySchema>;

export const priceLogHeadsResponseSchema = z
  .object({
    heads: z.array(priceLogHeadSchema).describe('ascending by tree_size'),
    next_from: z
      .number()
      .int()
      .nullable()
      .describe('the `from` of the next page (null: this page is the last up to `to`)'),
  })
  .meta({ example: { heads: [EXAMPLE_HEAD], next_from: null } });
export type PriceLogHeadsResponse = z.infer<typeof priceLogHeadsResponseSchema>;

export const priceLogConsistencyQuerySchema = z.strictObject({
  first: treeSize('the tree size of the older head (a published head)'),
  second: treeSize('the tree size of the newer head (a published head), at least `first`'),
});
export type PriceLogConsistencyQuery = z.infer<typeof priceLogConsistencyQuerySchema>;

export const priceLogConsistencyResponseSchema = z
  .object({
    first: priceLogHeadSchema,
    second: priceLogHeadSchema,
    proof: z
      .array(hex(32))
      .describe("RFC 6962 §2.1.2 consistency proof from first's tree to second's (verify by RFC 9162 §2.1.4.2)"),
  })
  .meta({ example: { first: EXAMPLE_HEAD, second: { ...EXAMPLE_HEAD, tree_size: 2048 }, proof: [EXAMPLE_HEAD.root] } });
export type PriceLogConsistencyResponse = z.infer<typeof priceLogConsistencyResponseSchema>;

/** The live price stream's message after each published head (GET /api/ws). */
export const wsPriceLogHeadSchema = z.object({ type: z.literal('price_log_head'), head: priceLogHeadSchema });
