import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';

const AUTO_CLOSE_MS = 5_000;

/** The menu footer's test button (§2.2): ask for permission, then show a browser notification. */
export function useTestNotification() {
  const { t } = useTranslation();
  return async () => {
    if (!('Notification' in window)) {
      notifications.show({ color: 'red', message: t('notifications.unsupported') });
      return;
    }
    let permission = Notification.permission;
    if (permission === 'default') permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      notifications.show({ color: 'red', message: t('notifications.denied'), autoClose: 8_000 });
      return;
    }
    try {
      const notification = new Notification(t('notifications.testTitle'), {
        body: t('notifications.testBody'),
        icon: '/favicon.svg',
      });
      window.setTimeout(() => notification.close(), AUTO_CLOSE_MS);
    } catch {
      // Some mobile browsers only show notifications from a service worker.
      notifications.show({ color: 'red', message: t('notifications.unsupported') });
    }
  };
}
