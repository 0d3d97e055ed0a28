import { homePathFor, type Role } from '@brokerage/shared';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { ExternalRedirect } from '../../ui/ExternalRedirect';
import { FullScreenLoader } from '../../ui/FullScreenLoader';
import { takeStaffLandingPath } from '../api/session';

function StaffLanding({ role }: { role: Role }) {
  const navigate = useNavigate();
  // The remembered path is used once; the ref keeps a repeated effect (StrictMode) from taking it twice.
  const taken = useRef(false);
  useEffect(() => {
    if (taken.current) return;
    taken.current = true;
    navigate(takeStaffLandingPath(role), { replace: true });
  }, [navigate, role]);
  return <FullScreenLoader />;
}

/** /login for a signed-in user (§2.1, D10): a client goes to /trading, staff to the remembered /crm path or home. */
export function SignedInRedirect({ role }: { role: Role }) {
  if (role === 'client') return <ExternalRedirect to={homePathFor(role)} />;
  return <StaffLanding role={role} />;
}
