import { Paper, Tabs } from '@mantine/core';
import { IconCreditCard, IconMessage } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../ui/PageHeader';
import { ClientMessagesTab } from './ClientMessagesTab';
import { DepositMethodsTab } from './DepositMethodsTab';

/** §2.15 'Торговая платформа — Управление способами пополнения и сообщениями клиентам'. */
export function TradingPlatformManagement() {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader title={t('tradingPlatform.title')} subtitle={t('tradingPlatform.subtitle')} />
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Tabs defaultValue="deposits" keepMounted={false}>
          <Tabs.List mb="md">
            <Tabs.Tab value="deposits" leftSection={<IconCreditCard size={16} />} data-testid="tab-deposits">
              {t('tradingPlatform.tabs.deposits')}
            </Tabs.Tab>
            <Tabs.Tab value="messages" leftSection={<IconMessage size={16} />} data-testid="tab-messages">
              {t('tradingPlatform.tabs.messages')}
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="deposits">
            <DepositMethodsTab />
          </Tabs.Panel>
          <Tabs.Panel value="messages">
            <ClientMessagesTab />
          </Tabs.Panel>
        </Tabs>
      </Paper>
    </>
  );
}
