import { useCallback, useEffect, useState } from 'react';

export interface Remote<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `load` (a stable function) once and then every `everyMs` (if given) while the page is open; keeps the last good answer on a failure. */
export function useRemote<T>(load: () => Promise<T>, everyMs?: number): Remote<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  // `load` is a stable module-level function (siteApi.*).
  const run = useCallback(() => {
    load().then(
      (value) => {
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        setError(err);
        setLoading(false);
      },
    );
  }, [load]);
  useEffect(() => {
    run();
    if (!everyMs) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') run();
    }, everyMs);
    return () => window.clearInterval(timer);
  }, [run, everyMs]);
  return { data, error, loading, reload: run };
}

/** The id of the section whose area crosses the middle of the viewport (the header marks it active). */
export function useActiveSection(ids: readonly string[]): string {
  const [active, setActive] = useState(ids[0] ?? '');
  useEffect(() => {
    if (typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) if (entry.isIntersecting) setActive(entry.target.id);
      },
      { rootMargin: '-45% 0px -50% 0px' },
    );
    for (const id of ids) {
      const el = document.getElementById(id);
      if (el) observer.observe(el);
    }
    return () => observer.disconnect();
  }, [ids]);
  return active;
}
