import { lazy, Suspense } from 'react';
import { createBrowserRouter, Outlet } from 'react-router';
import { useSession } from './modules/auth/api/session';
import { FullScreenLoader } from './modules/ui/FullScreenLoader';
import { RouteError } from './modules/ui/RouteError';
import LoginPage from './pages/LoginPage';
import NotFoundPage from './pages/NotFoundPage';

// One chunk per area; the public site and the trading screen join here as their own areas.
const CrmArea = lazy(() => import('./areas/crm/CrmArea'));
const loadTradingArea = () => import('./areas/trading/TradingArea');
// A fresh load of a trading path fetches its chunk (and from it the first candles) while the session is checked.
if (/^\/(trading|demo|chart-test)(\/|$)/.test(window.location.pathname)) void loadTradingArea();
const TradingArea = lazy(loadTradingArea);
const SiteArea = lazy(() => import('./areas/site/SiteArea'));

/** §2.1: nothing renders until the session check (GET /api/auth/me) has answered. */
function SessionGate() {
  const session = useSession();
  if (session.isPending) return <FullScreenLoader />;
  return (
    <Suspense fallback={<FullScreenLoader />}>
      <Outlet />
    </Suspense>
  );
}

export const router = createBrowserRouter([
  {
    element: <SessionGate />,
    errorElement: <RouteError />,
    children: [
      // The public landing page; a fresh load of / boots it without the router (main.tsx).
      { path: '/', element: <SiteArea /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/crm/*', element: <CrmArea /> },
      { path: '/trading', element: <TradingArea /> },
      { path: '/demo', element: <TradingArea /> },
      { path: '/chart-test', element: <TradingArea /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
