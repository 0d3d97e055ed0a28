import {
  errorSchema,
  priceLogConsistencyQuerySchema,
  priceLogConsistencyResponseSchema,
  priceLogHeadSchema,
  priceLogHeadsQuerySchema,
  priceLogHeadsResponseSchema,
  priceLogKeySchema,
} from '@brokerage/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/errors.js';
import type { PriceLogSigner } from './keys.js';
import { headFromRow, headJson, type HeadJson } from './publisher.js';
import { consistencyPath, dbNodeSource } from './tree.js';

/** What never changes (a published head, a proof between two) may be kept by any cache. */
const IMMUTABLE = 'public, max-age=86400, immutable';
/** What the next head changes (the newest head, the last page): kept a second, about the heads' interval. */
const FRESH = 'public, max-age=1';

/**
 * The price log's public answers (issue 30 §1, decisions.md D27): its key, its signed tree heads and consistency proofs
 * between two of them. Public and read-only; everything served here is what anyone needs to check a proof document.
 */
export const priceLogRoutes: FastifyPluginAsyncZod<{
  deps: AppDeps;
  engine: { priceLogSigner: PriceLogSigner };
}> = async (app, { deps, engine }) => {
  const headAt = async (size: number): Promise<HeadJson> => {
    const row = await deps.db
      .selectFrom('price_log_heads')
      .selectAll()
      .where('tree_size', '=', String(size))
      .executeTakeFirst();
    if (!row) throw new HttpError(404, 'price_log_head_not_found', { size });
    return headJson(headFromRow(row));
  };

  app.get(
    '/api/price-log/key',
    {
      schema: {
        tags: ['price-log'],
        summary: "The price log's Ed25519 public key: every tree head is signed with it",
        description:
          'The raw 32-byte public key in hex, its id (the first 16 hex digits of its SHA-256) and the same key as a ' +
          'PEM. Heads signed by this key verify with it over the 50 bytes of RFC 6962 tree head signature input.',
        response: { 200: priceLogKeySchema },
      },
    },
    async (_request, reply) => {
      const key = engine.priceLogSigner.publicKey();
      void reply.header('cache-control', 'public, max-age=300');
      return { algorithm: key.algorithm, public_key: key.raw.toString('hex'), key_id: key.keyId, pem: key.pem };
    },
  );

  app.get(
    '/api/price-log/heads',
    {
      schema: {
        tags: ['price-log'],
        summary: "The price log's signed tree heads, ascending by tree size (paged)",
        description:
          'Heads with `from ≤ tree_size ≤ to`, at most `limit` (default 100, at most 500); `next_from` is the `from` ' +
          'of the next page, null on the last. A head never changes once published, so full pages may be cached.',
        querystring: priceLogHeadsQuerySchema,
        response: { 200: priceLogHeadsResponseSchema, 400: errorSchema },
      },
    },
    async (request, reply) => {
      const { from, to, limit } = request.query;
      let query = deps.db
        .selectFrom('price_log_heads')
        .selectAll()
        .orderBy('tree_size')
        .limit(limit + 1);
      if (from !== undefined) query = query.where('tree_size', '>=', String(from));
      if (to !== undefined) query = query.where('tree_size', '<=', String(to));
      const rows = await query.execute();
      const heads = rows.slice(0, limit).map((row) => headJson(headFromRow(row)));
      const next = rows[limit];
      void reply.header('cache-control', next ? IMMUTABLE : FRESH);
      return { heads, next_from: next ? Number(next.tree_size) : null };
    },
  );

  app.get(
    '/api/price-log/heads/latest',
    {
      schema: {
        tags: ['price-log'],
        summary: 'The newest signed tree head of the price log (404 before the first)',
        response: { 200: priceLogHeadSchema, 404: errorSchema },
      },
    },
    async (_request, reply) => {
      const row = await deps.db
        .selectFrom('price_log_heads')
        .selectAll()
        .orderBy('tree_size', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!row) throw new HttpError(404, 'price_log_no_head');
      void reply.header('cache-control', FRESH);
      return headJson(headFromRow(row));
    },
  );

  app.get(
    '/api/price-log/consistency',
    {
      schema: {
        tags: ['price-log'],
        summary: 'An RFC 6962 consistency proof between two published heads (the log only grew)',
        description:
          '`first` and `second` are the tree sizes of two published heads (else 404), `first ≤ second` (else 422). ' +
          'The proof is RFC 6962 §2.1.2, checked by RFC 9162 §2.1.4.2 against both roots.',
        querystring: priceLogConsistencyQuerySchema,
        response: { 200: priceLogConsistencyResponseSchema, 400: errorSchema, 404: errorSchema, 422: errorSchema },
      },
    },
    async (request, reply) => {
      const { first, second } = request.query;
      if (first > second) throw new HttpError(422, 'price_log_consistency_order', { first, second });
      const [older, newer] = [await headAt(first), await headAt(second)];
      const proof = await consistencyPath(dbNodeSource(deps.db), first, second);
      void reply.header('cache-control', IMMUTABLE);
      return { first: older, second: newer, proof: proof.map((hash) => hash.toString('hex')) };
    },
  );
};
