import { useEffect, useState } from 'react';

/**
 * The current time in ms, ticking every `intervalMs` while `active`: the countdowns of trades tick every second, the
 * notifications' relative times every 30 s.
 */
export function useNow(intervalMs: number, active = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const tick = () => setNow(Date.now());
    const timer = window.setInterval(tick, intervalMs);
    // Catch up at once when ticking resumes (a trade appears after a quiet while).
    const first = window.setTimeout(tick, 0);
    return () => {
      window.clearInterval(timer);
      window.clearTimeout(first);
    };
  }, [intervalMs, active]);
  return now;
}
