import { lazy, Suspense, type ComponentType } from 'react';
import { createBrowserRouter, Outlet } from 'react-router';
import { useSession } from './modules/auth/api/session';
import { FullScreenLoader } from './modules/ui/FullScreenLoader';
import { RouteError } from './modules/ui/RouteError';
import LoginPage from './pages/LoginPage';
import NotFoundPage from './pages/NotFoundPage';

// One chunk per area; the public site and the trading screen join here as their own areas.
const CrmArea = lazy(() => import('./areas/crm/CrmArea'));
/** The trading area once its chunk has loaded: rendered directly then, without suspending (see TradingRoute). */
let loadedTradingArea: ComponentType | null = null;
export const loadTradingArea = () =>
  import('./areas/trading/TradingArea').then((module) => {
    loadedTradingArea = module.default;
    return module;
  });
const LazyTradingArea = lazy(loadTradingArea);
/**
 * A fresh load of a trading path has its chunk already (main.tsx fetched it beside the application's, and app.tsx
 * renders after it): rendering it directly spares a suspension, whose fallback React keeps on screen for at least
 * 300 ms before revealing the content (issue 12, item 6: the first chart). Arriving from another screen, it loads lazily.
 */
function TradingArea() {
  const Loaded = loadedTradingArea;
  return Loaded ? <Loaded /> : <LazyTradingArea />;
}
const SiteArea = lazy(() => import('./areas/site/SiteArea'));
// Public: a proof file is checked in the browser by the open verifier (issue 30 §3); its own chunk.
const VerifyPage = lazy(() => import('./modules/price-proof/components/VerifyPage'));
// The pages the e-mail links open (issue 22): public, each its own chunk.
const VerifyEmailPage = lazy(() => import('./modules/auth/pages/VerifyEmailPage'));
const ResetPasswordPage = lazy(() => import('./modules/auth/pages/ResetPasswordPage'));
const InvitationPage = lazy(() => import('./modules/auth/pages/InvitationPage'));
const UnsubscribePage = lazy(() => import('./modules/mail-outbox/components/UnsubscribePage'));

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
      { path: '/verify', element: <VerifyPage /> },
      { path: '/verify-email', element: <VerifyEmailPage /> },
      { path: '/reset-password', element: <ResetPasswordPage /> },
      { path: '/invitation', element: <InvitationPage /> },
      { path: '/unsubscribe', element: <UnsubscribePage /> },
      { path: '/crm/*', element: <CrmArea /> },
      { path: '/trading', element: <TradingArea /> },
      { path: '/demo', element: <TradingArea /> },
      { path: '/chart-test', element: <TradingArea /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
