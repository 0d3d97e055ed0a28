/**
 * The application (back office, trading screen, sign-in): Mantine, the router and the translations. main.tsx loads it
 * for every path but the public landing page, which boots on its own (areas/site/boot.tsx).
 */
import '@mantine/core/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/notifications/styles.css';
import { loadBackOfficeTranslations } from './i18n';

import { DatesProvider } from '@mantine/dates';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import dayjs from 'dayjs';
import 'dayjs/locale/ru';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { queryClient } from './lib/query-client';
import { loadTradingArea, router } from './router';
import { colorSchemeManager, cssVariablesResolver, theme } from './theme';

// DateInput parses typed dates in its DD.MM.YYYY display format.
dayjs.extend(customParseFormat);

function App() {
  const { i18n } = useTranslation();
  dayjs.locale(i18n.language);
  return (
    <MantineProvider
      theme={theme}
      colorSchemeManager={colorSchemeManager}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="light"
    >
      <DatesProvider settings={{ locale: i18n.language, firstDayOfWeek: 1 }}>
        <Notifications position="top-right" />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </DatesProvider>
    </MantineProvider>
  );
}

const container = document.getElementById('root');
if (!container) throw new Error('#root is missing from index.html');
const render = () =>
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );

// The trading screen renders at once and takes the back office's translations when idle (the staff bell and the
// shared loaders use them); every other path (back office, /login, not found) waits for them before it renders.
if (/^\/(trading|demo|chart-test)(\/|$)/.test(window.location.pathname)) {
  // Its chunk is already downloading beside this one (main.tsx): render once it is here, so nothing suspends.
  void loadTradingArea()
    .catch(() => undefined)
    .finally(render);
  const later = () => void loadBackOfficeTranslations().catch(() => undefined);
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(later, { timeout: 3000 });
  else setTimeout(later, 1000);
} else {
  void loadBackOfficeTranslations()
    .catch(() => undefined)
    .finally(render);
}
