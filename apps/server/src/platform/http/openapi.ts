import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_ROUTES, type RouteAccess } from '@brokerage/shared';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** The OpenAPI tag of the partner-facing operations (the external API and the lead file upload). */
export const EXTERNAL_API_TAG = 'External API';

const EXTERNAL_API_DESCRIPTION = [
  'The endpoints for affiliates and lead providers. **Authentication**: the affiliate token you were given, either as',
  'the query parameter `?token=<token>` or as the header `Authorization: Bearer <token>`. A missing, unknown or',
  'deleted token, or a call from an address outside the token’s IP whitelist, is answered `401 {"detail": "Access',
  'denied"}`. **Errors** are JSON `{"detail": "...", "code": "..."}` in English: 400 names the field at fault; 409',
  'an Idempotency-Key reused with another body; 429 past the token’s rate limit (wait the `Retry-After` seconds).',
  '**Rate limit** per token (EXTERNAL_RATE_PER_MINUTE, N = 120 by default): a burst of N calls, then one every 60/N s,',
  'so N a minute on average but up to 2N − 1 in a first minute. **Balances**: `balance` in the clients list is the',
  'figure the CRM shows as the lead’s balance, the total of its deposits; `trading_balance` is what its trading',
  'account holds now.',
  '**Retries**: send an `Idempotency-Key` header (1–200 printable ASCII characters) with a POST; a retry with the',
  'same key and body gets the first answer and creates nothing twice. **Phones** are compared as E.164',
  '(`+77001234567`); a number without a country code is read in the brokerage’s default region.',
].join(' ');

/**
 * A stable, unique operationId from the route's registry key: the method, then the path's words in camel case, a
 * path parameter read as 'By<Name>' ('GET /api/clients/:id/comments' → 'getClientsByIdComments').
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, '')
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith(':') ? ['by', segment.slice(1)] : segment.split(/[-_.]/)))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

type Json = Record<string, unknown>;

const ERROR_BODY = {
  type: 'object',
  properties: { detail: { type: 'string' }, code: { type: 'string' } },
  required: ['detail'],
};

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '400': 'Bad request: the detail names the field or the problem',
  '401': 'Not authenticated',
  '403': 'Forbidden: the role, the IP whitelist or a rule refuses it',
  '404': 'Not found (or outside the caller’s scope)',
  '409': 'Conflict',
  '413': 'Too large',
  '415': 'Unsupported media type: send the body as the operation says (JSON, or multipart for a file)',
  '422': 'Unprocessable',
  '429': 'Too many requests: wait the Retry-After seconds',
  '503':
    'Temporarily unavailable (the database is not answering, or the request passed its time bound): wait the Retry-After seconds',
};

const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before the next call' } };

/** The external API's refusals, with an example each: a partner's program is written from these. */
const EXTERNAL_ERRORS: Record<string, { text: string; example: { detail: string; code: string } }> = {
  '400': {
    text: 'Invalid request data: the detail names the field',
    example: { detail: 'email: Please enter a valid email address', code: 'validation_error' },
  },
  '401': {
    text: 'Access denied: missing, unknown or deleted token, or an address outside the token’s IP whitelist',
    example: { detail: 'Access denied', code: 'access_denied' },
  },
  '409': {
    text: 'The Idempotency-Key was already used with another body',
    example: {
      detail: 'This Idempotency-Key was already used with a different request',
      code: 'idempotency_key_reused',
    },
  },
  '429': {
    text: 'Past the token’s rate limit: wait the Retry-After seconds',
    example: { detail: 'Too many requests, try again later', code: 'rate_limited' },
  },
};

/**
 * OpenAPI 3.0 has no null type: `nullable` needs a `type` beside it. A schema with neither type nor composition
 * (zod's unknown, say) already admits any value, null included, so its `nullable` is dropped.
 */
function dropUntypedNullable(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(dropUntypedNullable);
  const schema = node as Json;
  if (schema.nullable === true && !['type', '$ref', 'allOf', 'anyOf', 'oneOf'].some((k) => k in schema))
    delete schema.nullable;
  Object.values(schema).forEach(dropUntypedNullable);
}

/**
 * A nullable enum must list null among its values, or a strict validator refuses the null the API answers (OpenAPI
 * 3.0.3 clarified `nullable` this way; Ajv checks `enum` on its own).
 */
function nullInNullableEnums(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(nullInNullableEnums);
  const schema = node as Json;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null);
  Object.values(schema).forEach(nullInNullableEnums);
}

/**
 * Completes each operation from the route registry, so that the document passes `redocly lint` (recommended rules)
 * and code generators get real names: an operationId, the security the route really takes (none for public routes,
 * the affiliate token for the external API), a 429 on every operation (the global rate limit answers it anywhere),
 * the file a download route answers as its 2xx, and a description on every answer.
 */
const transform: SwaggerTransform = (input) => {
  const out = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]);
  const schema = out.schema as Json;
  if (!schema || schema.hide) return out;
  const method = [input.route.method].flat()[0]!;
  const access = (API_ROUTES as Record<string, RouteAccess>)[`${method} ${input.url}`];
  dropUntypedNullable(schema);
  nullInNullableEnums(schema);

  schema.operationId ??= operationIdOf(method, input.url);
  if (access === 'public') schema.security = [];
  if (access === 'affiliate_token') schema.security = [{ affiliateToken: [] }, { affiliateBearer: [] }];

  const response = { ...((schema.response as Json | undefined) ?? {}) };
  response['429'] = { ...((response['429'] as Json | undefined) ?? ERROR_BODY), headers: RETRY_AFTER };
  // Issue 21: any route answers 503 with Retry-After when its database is lost or slow, or past its time bound.
  response['503'] ??= { ...ERROR_BODY, headers: RETRY_AFTER };
  // A body the JSON parser (or the multipart upload) does not take is refused 415 before the handler runs.
  if (schema.body || schema.consumes) response['415'] ??= ERROR_BODY;
  for (const [code, body] of Object.entries(response)) {
    const external = access === 'affiliate_token' ? EXTERNAL_ERRORS[code] : undefined;
    if (external) response[code] = { ...(body as Json), example: external.example };
    const text = external?.text ?? STATUS_TEXT[code];
    if (text) response[code] = { ...(response[code] as Json), 'x-response-description': text };
  }
  const produces = ((schema.produces as string[] | undefined) ?? []).filter((type) => !type.includes('json'));
  if (produces.length > 0) {
    // A download: the file is the 2xx, in its own media types as binary (a client must not parse it as JSON); the
    // refusals stay JSON.
    const file = (text: unknown) => ({
      'x-response-description': text ?? 'The file',
      content: Object.fromEntries(produces.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
    });
    for (const [code, body] of Object.entries(response)) {
      const { headers, 'x-response-description': text, description, ...json } = body as Json;
      response[code] = code.startsWith('2')
        ? file(description ?? text)
        : { 'x-response-description': text, headers, content: { 'application/json': { schema: json } } };
    }
    if (!Object.keys(response).some((code) => code.startsWith('2'))) response['200'] = file(undefined);
  }
  schema.response = response;
  return { schema: schema as typeof out.schema, url: out.url };
};

/** The OpenAPI document at /api/docs/json and its UI at /api/docs, built from the routes' zod schemas. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Brokerage API',
        version,
        description:
          'Staff back office, client platform and partner API. Authenticate with the session cookie set by ' +
          'POST /api/auth/login, or send the returned access_token as `Authorization: Bearer <token>`. ' +
          'Errors are `{"detail": "...", "code": "..."}`; the detail follows Accept-Language (ru by default, en). ' +
          `Partners: see the tag '${EXTERNAL_API_TAG}'.`,
      },
      // Relative: the document describes the server that serves it.
      servers: [{ url: '/', description: 'This server' }],
      tags: [{ name: EXTERNAL_API_TAG, description: EXTERNAL_API_DESCRIPTION }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'session' },
          affiliateToken: {
            type: 'apiKey',
            in: 'query',
            name: 'token',
            description: 'The affiliate token (43 characters), as the query parameter `token`',
          },
          affiliateBearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'The affiliate token as `Authorization: Bearer <token>`',
          },
        },
      },
      security: [{ bearer: [] }, { cookie: [] }],
    },
    transform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: false });
}
