import {
  errorSchema,
  externalClientCreateSchema,
  externalClientsQuerySchema,
  externalClientsResponseSchema,
  externalPostResponseSchema,
  leadAdsLeadSchema,
  searchAdsLeadSchema,
} from '@brokerage/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/errors.js';
import { EXTERNAL_API_TAG } from '../../platform/http/openapi.js';
import { IDEMPOTENCY_HEADER, runIdempotent } from '../../platform/http/idempotency.js';
import { idempotencyHeaders } from '../../platform/http/idempotency.js';
import { authenticateAffiliate, takeRateSlot, type AffiliateCaller } from './access.js';
import { leadPhone, listAffiliateLeads, postLead, type IncomingLead, type LeadSource } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The partner of an external API call, set by the token check of modules/external-api. */
    affiliate: AffiliateCaller | null;
  }
}

const errors = { 400: errorSchema, 401: errorSchema, 429: errorSchema };
const postErrors = { ...errors, 409: errorSchema };

const POST_RULES =
  'A lead needs `name` and an `email` or a `phone` (any format libphonenumber-js reads; numbers without a country ' +
  'code are read in the server’s default region). The answer is 200 `{status, client_id, client}`: `created` for a ' +
  'new lead; `duplicate` when the e-mail (case-insensitive) or the phone (compared as E.164) is already a lead’s, ' +
  'with that lead when it is yours and `client_id: null, client: null` when it is not. Send an `Idempotency-Key` ' +
  'header to retry safely: a retry with the same key and body gets the first answer.';

/** The token of `Authorization: Bearer <token>`, else of `?token=` (given once). */
function tokenOf(request: FastifyRequest): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const query = (request.query ?? {}) as Record<string, unknown>;
  return typeof query.token === 'string' ? query.token : undefined;
}

/**
 * The external API for affiliates and lead providers (back-office.md §7, §8; decisions.md D13, D17). Every call
 * passes the token check first: one 401 'Access denied' for a missing, unknown or deleted token, an affiliate that is
 * deleted or not active, or an address outside the token's whitelist (the reason is logged, never the token); then
 * the per-token rate limit (429 with Retry-After). Answers are in English whatever Accept-Language says.
 */
export const externalApiRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.decorateRequest('affiliate', null);

  app.addHook('onRequest', async (request, reply) => {
    // Partners are programs: one language for every answer, validation messages included.
    request.headers['accept-language'] = 'en';
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    const checked = await authenticateAffiliate(deps.db, tokenOf(request), request.ip);
    if ('denied' in checked) {
      request.log.warn(
        { reason: checked.denied, token_id: checked.tokenId ?? null, ip: request.ip, route },
        'external API access denied',
      );
      reply.header('www-authenticate', 'Bearer realm="external"');
      throw new HttpError(401, 'access_denied');
    }
    const wait = await takeRateSlot(deps.db, checked.caller.tokenId, deps.config.EXTERNAL_RATE_PER_MINUTE);
    if (wait !== null) {
      request.log.warn({ token_id: checked.caller.tokenId, ip: request.ip, route }, 'external API rate limit');
      reply.header('retry-after', String(wait));
      throw new HttpError(429, 'rate_limited');
    }
    request.affiliate = checked.caller;
    // The token is a credential, not a parameter: it leaves the query before the (strict) query schema sees it.
    const query = request.query as Record<string, unknown> | undefined;
    if (query && 'token' in query) delete query.token;
  });

  /** The three POSTs: the phone checked, then the lead posted once per Idempotency-Key of this token. */
  async function post(request: FastifyRequest, reply: FastifyReply, source: LeadSource, lead: IncomingLead) {
    const caller = request.affiliate!;
    const phoneE164 = leadPhone(lead.phone, deps.config.DEFAULT_PHONE_REGION);
    const result = await runIdempotent(
      deps.db,
      {
        tokenId: caller.tokenId,
        route: `POST ${request.routeOptions.url}`,
        key: request.headers[IDEMPOTENCY_HEADER],
        request: request.body,
      },
      async (trx) => ({ status: 200, body: await postLead(trx, caller, source, lead, phoneE164) }),
    );
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return reply.status(200).send(result.body);
  }

  app.post(
    '/api/external/clients',
    {
      schema: {
        tags: [EXTERNAL_API_TAG],
        summary: 'Post a lead',
        description: `A lead from an affiliate; \`campaign_name\` becomes the lead's campaign. ${POST_RULES}`,
        headers: idempotencyHeaders,
        body: externalClientCreateSchema,
        response: { 200: externalPostResponseSchema, ...postErrors },
      },
    },
    async (request, reply) => {
      const { campaign_name, ...rest } = request.body;
      return post(request, reply, 'affiliate', { ...rest, campaign: campaign_name });
    },
  );

  app.get(
    '/api/external/clients',
    {
      schema: {
        tags: [EXTERNAL_API_TAG],
        summary: 'List your leads',
        description:
          'The leads posted with your affiliate’s tokens, newest first, for polling their status, FTD and balance ' +
          '(dollars; 0 before the lead has a trading account). `limit` 1–500 (default 100), `offset` from 0.',
        querystring: externalClientsQuerySchema,
        response: { 200: externalClientsResponseSchema, ...errors },
      },
    },
    async (request) => listAffiliateLeads(deps.db, request.affiliate!, request.query),
  );

  app.post(
    '/api/external/lead-ads',
    {
      schema: {
        tags: [EXTERNAL_API_TAG],
        summary: 'Post a lead from a lead-ads provider',
        description:
          'The lead-ads provider’s webhook. `campaign_name` (or else `utm_campaign`) becomes the lead’s campaign; ' +
          `\`ad_name\`, \`utm_source\` and \`utm_campaign\` are kept on the lead. ${POST_RULES}`,
        headers: idempotencyHeaders,
        body: leadAdsLeadSchema,
        response: { 200: externalPostResponseSchema, ...postErrors },
      },
    },
    async (request, reply) => {
      const { campaign_name, ...rest } = request.body;
      return post(request, reply, 'lead_ads', { ...rest, campaign: campaign_name ?? rest.utm_campaign });
    },
  );

  app.post(
    '/api/external/search-ads',
    {
      schema: {
        tags: [EXTERNAL_API_TAG],
        summary: 'Post a lead from a search-ads provider',
        description:
          'The search-ads provider’s webhook. `keyword`, `region`, `device`, `utm_source` and `utm_medium` are ' +
          `kept on the lead. ${POST_RULES}`,
        headers: idempotencyHeaders,
        body: searchAdsLeadSchema,
        response: { 200: externalPostResponseSchema, ...postErrors },
      },
    },
    async (request, reply) => post(request, reply, 'search_ads', request.body),
  );
};
