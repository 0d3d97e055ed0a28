import { useEffect } from 'react';
import { FullScreenLoader } from './FullScreenLoader';

/** Leaves the current area with a full page load (another area of the product, e.g. /trading). */
export function ExternalRedirect({ to }: { to: string }) {
  useEffect(() => {
    window.location.assign(to);
  }, [to]);
  return <FullScreenLoader />;
}
