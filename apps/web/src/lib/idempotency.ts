/**
 * A fresh Idempotency-Key (D3) for one submit by the user. The caller makes it once per submit (or when the form
 * opens) and reuses it for any retry of that submit, so a request repeated after a lost answer (or a double click)
 * gets the first answer and moves no money twice. crypto.randomUUID needs a secure context; on plain http the key is
 * built from crypto.getRandomValues.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The request header that carries it. */
export const idempotencyHeader = (key: string) => ({ 'Idempotency-Key': key });
