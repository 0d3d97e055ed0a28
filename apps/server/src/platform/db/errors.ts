/** Whether a database error is a unique-constraint violation (PostgreSQL and PGlite both report SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
