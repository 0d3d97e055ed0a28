import { Avatar, Button, Group, Stack, Text, Tooltip, ActionIcon } from '@mantine/core';
import { IconBell, IconLogout, IconMail, IconShieldLock } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { changeLanguage, currentLanguage } from '../../../i18n';
import type { CurrentUser } from '../../auth/api/session';
import { logout } from '../../auth/api/session';
import { MailSettingsModal } from '../../auth/components/MailSettingsModal';
import { TwoFactorSetupModal } from '../../auth/components/TwoFactorSetup';
import { LanguageSwitch } from '../../ui/LanguageSwitch';
import { roleLabelKey } from '../../ui/role-label';
import { ThemeToggle } from '../../ui/ThemeToggle';
import { useTestNotification } from '../hooks/useTestNotification';

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('');
}

/** §2.2 menu footer: test notifications, theme, language, the user's name and role, 'Выйти'. */
export function MenuFooter({ user, collapsed }: { user: CurrentUser; collapsed: boolean }) {
  const { t } = useTranslation();
  const testNotification = useTestNotification();
  const displayName = user.name || user.email;
  const roleLabel = t(roleLabelKey(user.role));
  // Issue 13: voluntary two-factor enrollment for staff.
  const [twoFactorOpen, setTwoFactorOpen] = useState(false);
  const twoFactorModal = <TwoFactorSetupModal opened={twoFactorOpen} onClose={() => setTwoFactorOpen(false)} />;
  // Issue 22 §5: the staff's mail settings (the daily digest of reminders).
  const [mailOpen, setMailOpen] = useState(false);
  const mailModal = <MailSettingsModal opened={mailOpen} onClose={() => setMailOpen(false)} />;

  if (collapsed) {
    const nextLanguage = currentLanguage() === 'ru' ? 'en' : 'ru';
    return (
      <Stack gap="xs" align="center">
        <Tooltip label={t('layout.testNotifications')} position="right">
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('layout.testNotifications')}
            onClick={() => void testNotification()}
            data-testid="test-notifications"
          >
            <IconBell size={18} />
          </ActionIcon>
        </Tooltip>
        <ThemeToggle />
        <Tooltip label={t('layout.language')} position="right">
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('layout.language')}
            onClick={() => changeLanguage(nextLanguage)}
            data-testid="language-switch"
          >
            <Text size="xs" fw={700}>
              {currentLanguage().toUpperCase()}
            </Text>
          </ActionIcon>
        </Tooltip>
        <Tooltip label={`${displayName} · ${roleLabel}`} position="right">
          <Avatar radius="xl" size="md" color="blue" data-testid="current-user">
            {initials(displayName)}
          </Avatar>
        </Tooltip>
        <Tooltip label={t('layout.twoFactor')} position="right">
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('layout.twoFactor')}
            onClick={() => setTwoFactorOpen(true)}
            data-testid="two-factor-menu"
          >
            <IconShieldLock size={18} />
          </ActionIcon>
        </Tooltip>
        {twoFactorModal}
        <Tooltip label={t('emailFlows.mail.menu')} position="right">
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t('emailFlows.mail.menu')}
            onClick={() => setMailOpen(true)}
            data-testid="mail-settings-menu"
          >
            <IconMail size={18} />
          </ActionIcon>
        </Tooltip>
        {mailModal}
        <Tooltip label={t('layout.logout')} position="right">
          <ActionIcon
            variant="subtle"
            color="red"
            size="lg"
            aria-label={t('layout.logout')}
            onClick={() => void logout()}
            data-testid="logout"
          >
            <IconLogout size={18} />
          </ActionIcon>
        </Tooltip>
      </Stack>
    );
  }

  return (
    <Stack gap="sm">
      <Button
        variant="default"
        leftSection={<IconBell size={16} />}
        onClick={() => void testNotification()}
        data-testid="test-notifications"
        fullWidth
      >
        {t('layout.testNotifications')}
      </Button>
      <Group justify="space-between" gap="xs">
        <LanguageSwitch />
        <ThemeToggle />
      </Group>
      <Group gap="sm" wrap="nowrap" data-testid="current-user">
        <Avatar radius="xl" color="blue">
          {initials(displayName)}
        </Avatar>
        <div style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} truncate>
            {displayName}
          </Text>
          <Text size="xs" c="dimmed" data-testid="current-user-role">
            {roleLabel}
          </Text>
        </div>
      </Group>
      <Button
        variant="default"
        leftSection={<IconShieldLock size={16} />}
        onClick={() => setTwoFactorOpen(true)}
        data-testid="two-factor-menu"
        fullWidth
      >
        {t('layout.twoFactor')}
      </Button>
      {twoFactorModal}
      <Button
        variant="default"
        leftSection={<IconMail size={16} />}
        onClick={() => setMailOpen(true)}
        data-testid="mail-settings-menu"
        fullWidth
      >
        {t('emailFlows.mail.menu')}
      </Button>
      {mailModal}
      <Button
        variant="light"
        color="red"
        leftSection={<IconLogout size={16} />}
        onClick={() => void logout()}
        data-testid="logout"
        fullWidth
      >
        {t('layout.logout')}
      </Button>
    </Stack>
  );
}
