import { homePathFor, type Role } from '@brokerage/shared';
import { STORAGE_KEYS, sessionStore } from '../../lib/storage-keys';

/**
 * Where a user goes after logging in or registering from the modal (client-platform.md §2.1, D10): a client to
 * /trading; staff to the saved intendedPath when it is a /crm path (then forgotten), else their CRM home.
 */
export function landingPathAfterLogin(role: Role): string {
  if (role === 'client') return homePathFor(role);
  const intended = sessionStore.get(STORAGE_KEYS.intendedPath);
  sessionStore.remove(STORAGE_KEYS.intendedPath);
  if (intended && (intended === '/crm' || intended.startsWith('/crm/') || intended.startsWith('/crm?')))
    return intended;
  return homePathFor(role);
}
