import { createContext, useContext } from 'react';
import type { CurrentUser } from './api/session';

/**
 * The signed-in staff member, provided by the /crm guard. Screens read it from here rather than from the session
 * query, so when a session ends they are unmounted by the guard before they could render without a user.
 */
export const CurrentUserContext = createContext<CurrentUser | null>(null);

export function useCurrentUser(): CurrentUser {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser is only for screens behind the /crm guard');
  return user;
}
