import type { Notification } from '@brokerage/shared';
import {
  ActionIcon,
  Affix,
  Badge,
  Button,
  Group,
  Indicator,
  Paper,
  Popover,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
} from '@mantine/core';
import { notifications as toasts } from '@mantine/notifications';
import { IconBell, IconCheck, IconExternalLink, IconTrash } from '@tabler/icons-react';
import { useContext, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { DEFAULT_BUSINESS_TIME_ZONE } from '../../../lib/format';
import { connectLive, onLiveMessage } from '../../../lib/ws';
import { CurrentUserContext } from '../../auth/current-user';
import { ErrorBox } from '../../ui/ErrorBox';
import { useNow } from '../../ui/use-now';
import { useDeleteNotification, useMarkAllRead, useMarkRead, useNotifications } from '../api/notifications';
import { badgeText, notificationMessage, notificationTitle, relativeTime } from '../format';
import { useReminderAlerts } from '../reminder-alerts';

function Item({
  n,
  now,
  timeZone,
  onGo,
}: {
  n: Notification;
  now: number;
  timeZone: string;
  onGo: (clientId: number, hash?: string) => void;
}) {
  const { t } = useTranslation('notify');
  const markRead = useMarkRead();
  const remove = useDeleteNotification();
  return (
    <Paper
      withBorder
      p="xs"
      radius="sm"
      data-testid="notification-item"
      data-type={n.type}
      data-read={n.read || undefined}
      bg={n.read ? undefined : 'var(--mantine-color-blue-light)'}
    >
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
        <Stack gap={2} style={{ minWidth: 0 }}>
          <Text size="sm" fw={n.read ? 500 : 700}>
            {notificationTitle(n, t)}
          </Text>
          <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
            {notificationMessage(n, t, timeZone)}
          </Text>
          <Text size="xs" c="dimmed">
            {relativeTime(n.created_at, now, t, timeZone)}
          </Text>
        </Stack>
        <Group gap={2} wrap="nowrap">
          {n.client_id !== null ? (
            <Tooltip label={t('bell.goToClient')}>
              <ActionIcon
                variant="subtle"
                aria-label={t('bell.goToClient')}
                onClick={() => {
                  if (!n.read) markRead.mutate(n.id);
                  onGo(n.client_id!, n.type === 'client_message' ? '#conversation' : '');
                }}
                data-testid="notification-go"
              >
                <IconExternalLink size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          {n.read ? null : (
            <Tooltip label={t('bell.markRead')}>
              <ActionIcon
                variant="subtle"
                color="green"
                aria-label={t('bell.markRead')}
                loading={markRead.isPending}
                onClick={() => markRead.mutate(n.id)}
                data-testid="notification-read"
              >
                <IconCheck size={16} />
              </ActionIcon>
            </Tooltip>
          )}
          <Tooltip label={t('bell.delete')}>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('bell.delete')}
              loading={remove.isPending}
              onClick={() => remove.mutate(n.id)}
              data-testid="notification-delete"
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
    </Paper>
  );
}

/**
 * §2.8 and D12: the floating bell with its unread badge ('9+' above 9) and the panel of the staff member's
 * notifications (mark read, 'Acknowledged' for all, delete, go to client), hidden while there are none. New ones
 * arrive over the live socket (a toast announces them); the reminder browser notifications run while it is mounted.
 * Self-contained: mount it on any staff screen (the back office layout, the trading screen for staff).
 */
export function NotificationsBell({
  timeZone: givenTimeZone,
  position = { bottom: 20, right: 20 },
}: {
  /** The business time zone; by default the signed-in staff member's, else Europe/Kyiv. */
  timeZone?: string;
  /** Where the bell floats (Mantine Affix position). */
  position?: { top?: number; bottom?: number; left?: number; right?: number };
} = {}) {
  const { t } = useTranslation('notify');
  const user = useContext(CurrentUserContext);
  const timeZone = givenTimeZone ?? user?.business_timezone ?? DEFAULT_BUSINESS_TIME_ZONE;
  const navigate = useNavigate();
  const list = useNotifications();
  const markAll = useMarkAllRead();
  const [opened, setOpened] = useState(false);
  const now = useNow(30_000);
  useReminderAlerts(timeZone);
  // New notifications arrive over the live socket (D11, D12); connecting is idempotent.
  useEffect(() => connectLive(), []);

  useEffect(
    () =>
      onLiveMessage((message) => {
        if (message.type !== 'notification.new') return;
        const n = message.payload.notification as Notification | undefined;
        const count = typeof message.payload.count === 'number' ? message.payload.count : 1;
        if (!n?.type) return;
        if (count > 1) {
          toasts.show({ title: t('bell.label'), message: t('bell.manyNew', { count }), autoClose: 6_000 });
          return;
        }
        toasts.show({
          title: t(`types.${n.type}.title`),
          message: notificationMessage(n, t, timeZone),
          autoClose: 6_000,
        });
      }),
    [t, timeZone],
  );

  const items = list.data?.items ?? [];
  const unread = list.data?.unread ?? 0;
  // §2.8: hidden entirely when there are none (and the panel closes with the last one).
  if (!list.data || list.data.total === 0) return null;

  // A client's message opens the card at its conversation (issue 22 §6).
  const goTo = (clientId: number, hash = '') => {
    setOpened(false);
    void navigate(`/crm/clients/${clientId}${hash}`);
  };

  return (
    <Affix position={position} zIndex={190}>
      <Popover
        opened={opened}
        onChange={setOpened}
        position="top-end"
        width={360}
        shadow="lg"
        withinPortal
        trapFocus
        returnFocus
      >
        <Indicator
          label={badgeText(unread)}
          size={20}
          color="red"
          disabled={unread === 0}
          offset={6}
          data-testid="notifications-badge"
        >
          {/* The popover's target is the button itself: a div may not carry aria-haspopup/aria-expanded. */}
          <Popover.Target>
            <ActionIcon
              size={52}
              radius="xl"
              variant="filled"
              aria-label={t('bell.open', { count: unread })}
              onClick={() => setOpened((o) => !o)}
              data-testid="notifications-bell"
              data-unread={unread}
            >
              <IconBell size={26} />
            </ActionIcon>
          </Popover.Target>
        </Indicator>
        <Popover.Dropdown p="xs" data-testid="notifications-panel" maw="calc(100vw - 24px)">
          <Group justify="space-between" mb="xs" wrap="nowrap">
            <Group gap={6}>
              <Text fw={700}>{t('bell.label')}</Text>
              {unread > 0 ? (
                <Badge size="sm" color="red" variant="light">
                  {unread}
                </Badge>
              ) : null}
            </Group>
            <Button
              size="compact-sm"
              variant="light"
              disabled={unread === 0}
              loading={markAll.isPending}
              onClick={() => markAll.mutate(undefined, { onSuccess: () => setOpened(false) })}
              data-testid="notifications-ack"
            >
              {t('bell.acknowledged')}
            </Button>
          </Group>
          <ErrorBox message={list.isError || markAll.isError ? t('bell.error') : null} />
          <ScrollArea.Autosize mah={420} type="auto">
            <Stack gap={6}>
              {items.map((n) => (
                <Item key={n.id} n={n} now={now} timeZone={timeZone} onGo={goTo} />
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Popover.Dropdown>
      </Popover>
    </Affix>
  );
}
