import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

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
          'Errors are `{"detail": "...", "code": "..."}`; the detail follows Accept-Language (ru by default, en).',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'session' },
        },
      },
      security: [{ bearer: [] }, { cookie: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: false });
}
