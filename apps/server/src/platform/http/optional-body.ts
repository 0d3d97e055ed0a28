import type { z } from 'zod';

/** The marker fastify-type-provider-zod puts on its validation issues (a global symbol), read by the error handler. */
const ZOD_VALIDATION_ISSUE = Symbol.for('ZodFastifySchemaValidationError');

/**
 * Validates a body the route does not require. A route whose schema declares a body requires one (and the OpenAPI
 * document says so); a call the spec sends without a body but that may carry options (reject's reason) declares none
 * and validates here instead. A missing or null body counts as {}. A bad body is refused exactly as a declared one
 * would be: 400 with the same {detail, code: 'validation_error'} naming the field, through the one error handler.
 */
export function parseOptionalBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const validation = result.error.issues.map((issue) => {
    const { path, code, message, ...params } = issue as unknown as {
      path: PropertyKey[];
      code: string;
      message: string;
    } & Record<string, unknown>;
    return {
      [ZOD_VALIDATION_ISSUE]: true,
      keyword: code,
      instancePath: `/${path.map(String).join('/')}`,
      schemaPath: `#/${path.map(String).join('/')}/${code}`,
      message,
      params,
    };
  });
  throw Object.assign(new Error('body validation failed'), { statusCode: 400, validation, validationContext: 'body' });
}
