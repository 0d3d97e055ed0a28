import { homePathFor } from '@brokerage/shared';
import { use, type ReactNode } from 'react';
import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { backOfficeTranslationsLoaded, loadBackOfficeTranslations } from '../../i18n';
import { useCurrentUser } from '../../modules/auth/current-user';
import { RequireStaff } from '../../modules/auth/components/RequireStaff';
import { CrmLayout } from '../../modules/layout/components/CrmLayout';
import { AccessDenied } from '../../modules/ui/AccessDenied';
import { NotFound } from '../../modules/ui/NotFound';
import AccessPage from '../../pages/crm/AccessPage';
import AffiliatesPage from '../../pages/crm/AffiliatesPage';
import AuditPage from '../../pages/crm/AuditPage';
import CalendarPage from '../../pages/crm/CalendarPage';
import ClientCardPage from '../../pages/crm/ClientCardPage';
import ClientsPage from '../../pages/crm/ClientsPage';
import DashboardPage from '../../pages/crm/DashboardPage';
import DepositHistoryPage from '../../pages/crm/DepositHistoryPage';
import InboxPage from '../../pages/crm/InboxPage';
import IntegrationPage from '../../pages/crm/IntegrationPage';
import OutboxPage from '../../pages/crm/OutboxPage';
import StaffPage from '../../pages/crm/StaffPage';
import TradingAccountPage from '../../pages/crm/TradingAccountPage';
import TradingAccountsPage from '../../pages/crm/TradingAccountsPage';
import TradingManagementPage from '../../pages/crm/TradingManagementPage';
import WithdrawalRequestsPage from '../../pages/crm/WithdrawalRequestsPage';
import { deniedAs, mayOpen } from './route-permissions';

function SectionGuard() {
  const user = useCurrentUser();
  const { pathname } = useLocation();
  if (mayOpen(user.role, pathname)) return <Outlet />;
  if (deniedAs(user.role, pathname) === 'redirect') return <Navigate to={homePathFor(user.role)} replace />;
  return <AccessDenied />;
}

function CrmHome() {
  const user = useCurrentUser();
  return <Navigate to={homePathFor(user.role)} replace />;
}

/** Reached from the trading screen before its idle load: waits (Suspense) for the back office's translations. */
function WithBackOfficeTranslations({ children }: { children: ReactNode }) {
  if (!backOfficeTranslationsLoaded()) use(loadBackOfficeTranslations());
  return children;
}

/**
 * The back office area (/crm/*), loaded as its own chunk. Screens not built yet (calendar...) fall to the
 * not-found page inside the layout; their menu entries are already shown (§6).
 */
export default function CrmArea() {
  return (
    <WithBackOfficeTranslations>
      <Routes>
        <Route element={<RequireStaff />}>
          <Route element={<CrmLayout />}>
            <Route element={<SectionGuard />}>
              <Route index element={<CrmHome />} />
              <Route path="dashboard" element={<DashboardPage />} />
              <Route path="clients" element={<ClientsPage />} />
              <Route path="clients/:id" element={<ClientCardPage />} />
              <Route path="inbox" element={<InboxPage />} />
              <Route path="applications" element={<WithdrawalRequestsPage />} />
              <Route path="history" element={<DepositHistoryPage />} />
              <Route path="calendar" element={<CalendarPage />} />
              <Route path="integration" element={<IntegrationPage />} />
              <Route path="affiliates" element={<AffiliatesPage />} />
              <Route path="staff" element={<StaffPage />} />
              <Route path="trading-management" element={<TradingManagementPage />} />
              <Route path="trading-accounts" element={<TradingAccountsPage />} />
              <Route path="trading-accounts/:accountId" element={<TradingAccountPage />} />
              <Route path="access" element={<AccessPage />} />
              <Route path="audit" element={<AuditPage />} />
              <Route path="outbox" element={<OutboxPage />} />
              <Route path="*" element={<NotFound />} />
            </Route>
          </Route>
        </Route>
      </Routes>
    </WithBackOfficeTranslations>
  );
}
