import { ApiError } from '../../lib/api';

/** §8's 'Ошибка …: ' + detail or message: the server's detail when it gave one, else the error's own message. */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError) return error.detail || error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
