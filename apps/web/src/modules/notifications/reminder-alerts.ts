import { remindersResponseSchema, type Reminder } from '@brokerage/shared';
import { notifications as toasts } from '@mantine/notifications';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { apiCall } from '../../lib/api';
import { onLiveMessage } from '../../lib/ws';
import { CHECK_EVERY_MS, CLOSE_AFTER_MS, dueForAlert, FIRST_CHECK_MS, SHOWN_KEY, WINDOW_MS } from './reminder-window';

/**
 * Reminders that came due since the previous check and were never announced (the page opened late, the computer
 * slept): announced once as due now. Upcoming ones already announced keep their key and are not repeated.
 */
const JUST_DUE_MS = CHECK_EVERY_MS;

function justDue(items: readonly Reminder[], now: number, shown: ReadonlySet<string>): Reminder[] {
  return items.filter((r) => {
    const at = Date.parse(r.scheduled_time);
    return r.status === 'pending' && at <= now && at > now - JUST_DUE_MS && !shown.has(`${r.id}:${r.scheduled_time}`);
  });
}

function shownSet(): Set<string> {
  try {
    const raw = JSON.parse(localStorage.getItem(SHOWN_KEY) ?? '[]') as unknown;
    return new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

function remember(keys: Set<string>): void {
  try {
    localStorage.setItem(SHOWN_KEY, JSON.stringify([...keys].slice(-200)));
  } catch {
    // Storage full or blocked: at worst a reminder is announced twice.
  }
}

/**
 * §2.8 reminder browser notifications: the pending reminders of the caller's clients (GET /api/reminders) that fall
 * due within the next 5 minutes raise '📅 Напоминание: <title>' with the description (or 'Запланированное действие'),
 * the client and 'Через N мин.'; it closes after 5 s and a click opens the client card in a new tab. Checked on the
 * §9 schedule, and at once when the server pushes a reminder notification. Permission is asked when there is
 * something to show; a refusal is explained once. The window is asked for in instants (due_from / due_to), so the
 * business time zone the bell still passes is not needed; reminders that came due since the previous check and were
 * never announced are announced as due now.
 */
export function useReminderAlerts(_timeZone?: string): void {
  const { t } = useTranslation('notify');
  const { t: tRoot } = useTranslation();

  useEffect(() => {
    if (typeof window === 'undefined' || !('Notification' in window)) return;
    let stopped = false;
    let deniedExplained = false;
    let running = false;

    const show = (reminder: Reminder, now: number) => {
      const left = Date.parse(reminder.scheduled_time) - now;
      const body = [
        reminder.description || t('browser.defaultDescription'),
        t('browser.client', { name: reminder.client_name }),
        left > 0 ? t('browser.inMinutes', { count: Math.max(1, Math.ceil(left / 60_000)) }) : t('browser.dueNow'),
      ].join('\n');
      const notification = new Notification(t('browser.title', { title: reminder.title }), {
        body,
        icon: '/favicon.svg',
        tag: `reminder-${reminder.id}`,
      });
      notification.onclick = () => {
        window.open(`/crm/clients/${reminder.client_id}`, '_blank', 'noopener');
        notification.close();
      };
      window.setTimeout(() => notification.close(), CLOSE_AFTER_MS);
    };

    const check = async () => {
      if (running || stopped) return;
      running = true;
      try {
        const now = Date.now();
        let items: Reminder[];
        try {
          // Exactly the window (the server's due_from / due_to instants): pending reminders that came due since the
          // previous check and those due within the next 5 minutes, soonest first. However many reminders fell due
          // earlier in the day, none of them takes a place on this page.
          const data = await apiCall(remindersResponseSchema, '/api/reminders', {
            query: {
              due_from: new Date(now - JUST_DUE_MS).toISOString(),
              due_to: new Date(now + WINDOW_MS).toISOString(),
              status: 'pending',
              order: 'asc',
              per_page: 100,
            },
          });
          items = data.items;
        } catch {
          return; // §8: polling failures are ignored.
        }
        const shown = shownSet();
        const due = [...justDue(items, now, shown), ...dueForAlert(items, now, shown)];
        if (due.length === 0 || stopped) return;
        let permission = Notification.permission;
        if (permission === 'default') permission = await Notification.requestPermission();
        if (permission !== 'granted') {
          if (!deniedExplained) {
            deniedExplained = true;
            toasts.show({ color: 'red', message: tRoot('notifications.denied'), autoClose: 8_000 });
          }
          return;
        }
        for (const reminder of due) {
          try {
            show(reminder, now);
          } catch {
            // Some mobile browsers only show notifications from a service worker.
          }
          shown.add(`${reminder.id}:${reminder.scheduled_time}`);
        }
        remember(shown);
      } finally {
        running = false;
      }
    };

    const first = window.setTimeout(() => void check(), FIRST_CHECK_MS);
    const every = window.setInterval(() => void check(), CHECK_EVERY_MS);
    const stopListening = onLiveMessage((message) => {
      if (message.type !== 'notification.new') return;
      const types = Array.isArray(message.payload.types) ? (message.payload.types as unknown[]) : [];
      if (types.includes('reminder_upcoming') || types.includes('reminder_due')) void check();
    });
    return () => {
      stopped = true;
      window.clearTimeout(first);
      window.clearInterval(every);
      stopListening();
    };
  }, [t, tRoot]);
}
