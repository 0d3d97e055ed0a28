import { useEffect } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { ExternalRedirect } from '../../ui/ExternalRedirect';
import { FullScreenLoader } from '../../ui/FullScreenLoader';
import { rememberIntendedPath, useSession } from '../api/session';
import { CurrentUserContext } from '../current-user';

function ToLogin() {
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  useEffect(() => {
    rememberIntendedPath(pathname + search);
    navigate('/login', { replace: true });
  }, [navigate, pathname, search]);
  return <FullScreenLoader />;
}

/** The /crm guard (§2.1, D10): anonymous → /login remembering the path; a client → /trading; staff pass. */
export function RequireStaff() {
  const { data: user } = useSession();
  if (!user) return <ToLogin />;
  if (user.role === 'client') return <ExternalRedirect to="/trading" />;
  return (
    <CurrentUserContext.Provider value={user}>
      <Outlet />
    </CurrentUserContext.Provider>
  );
}
