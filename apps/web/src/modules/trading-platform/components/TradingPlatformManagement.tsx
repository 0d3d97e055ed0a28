import { Paper, Tabs } from '@mantine/core';
import { IconCreditCard, IconMessage } from '@tabler/icons-react';
import { can } from '@brokerage/shared';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../auth/current-user';
import { PageHeader } from '../../ui/PageHeader';
import { ClientMessagesTab } from './ClientMessagesTab';
import { DepositMethodsTab } from './DepositMethodsTab';

/**
 * §2.15 'Торговая платформа — Управление способами пополнения и сообщениями клиентам'. The page opens with either
 * permission (issue 27 item 12): the deposit methods tab needs trading.manage, so admin — who sends client messages
 * (messages.send) but does not manage trading — gets the messages tab alone; the messages tab answers a role without
 * messages.send with its own 'Доступ запрещен!' (§2.15).
 */
export function TradingPlatformManagement() {
  const { t } = useTranslation();
  const { role } = useCurrentUser();
  const deposits = can(role, 'trading.manage');
  return (
    <>
      <PageHeader title={t('tradingPlatform.title')} subtitle={t('tradingPlatform.subtitle')} />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Tabs defaultValue={deposits ? 'deposits' : 'messages'} keepMounted={false}>
          <Tabs.List mb="md">
            {deposits && (
              <Tabs.Tab value="deposits" leftSection={<IconCreditCard size={16} />} data-testid="tab-deposits">
                {t('tradingPlatform.tabs.deposits')}
              </Tabs.Tab>
            )}
            <Tabs.Tab value="messages" leftSection={<IconMessage size={16} />} data-testid="tab-messages">
              {t('tradingPlatform.tabs.messages')}
            </Tabs.Tab>
          </Tabs.List>
          {deposits && (
            <Tabs.Panel value="deposits">
              <DepositMethodsTab />
            </Tabs.Panel>
          )}
          <Tabs.Panel value="messages">
            <ClientMessagesTab />
          </Tabs.Panel>
        </Tabs>
      </Paper>
    </>
  );
}
