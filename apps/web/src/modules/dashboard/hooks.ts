import { useEffect, useState } from 'react';

const MINUTE = 60_000;

/** The current time, refreshed every minute on the minute (§9: the dashboard clock ticks every 60 s). */
export function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    let interval: number | undefined;
    const timeout = window.setTimeout(
      () => {
        setNow(new Date());
        interval = window.setInterval(() => setNow(new Date()), MINUTE);
      },
      MINUTE - (Date.now() % MINUTE),
    );
    return () => {
      window.clearTimeout(timeout);
      if (interval !== undefined) window.clearInterval(interval);
    };
  }, []);
  return now;
}
