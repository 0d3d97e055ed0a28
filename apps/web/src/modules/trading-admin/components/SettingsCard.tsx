import type { TradingAccount } from '@brokerage/shared';
import { Badge, Button, Group, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/format';
import { useUpdateSettings } from '../api/trading-admin';
import { failureReason } from '../failure-text';
import {
  acceptsMaxAmountInput,
  acceptsPayoutInput,
  settingsBody,
  type SettingsDraft,
  type SettingsError,
} from '../forms';

function draftOf(account: TradingAccount): SettingsDraft {
  return {
    trading_enabled: account.trading_enabled,
    max_trade_amount: String(account.max_trade_amount),
    payout_percentage: String(account.payout_percentage),
  };
}

function ViewField({ label, children, testId }: { label: string; children: ReactNode; testId: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600} mt={4} component="div" data-testid={testId}>
        {children}
      </Text>
    </div>
  );
}

function SettingsForm({
  account,
  onDone,
  onCancel,
}: {
  account: TradingAccount;
  onDone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const update = useUpdateSettings(account.id);
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(account));
  const [errors, setErrors] = useState<SettingsError[]>([]);

  const change = (patch: Partial<SettingsDraft>) => {
    setDraft((current) => ({ ...current, ...patch }));
    setErrors([]);
  };
  const save = () => {
    const result = settingsBody(draft);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    update.mutate(result.body, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('tradingAccounts.settings.success') });
        onDone();
      },
      onError: (error) =>
        notifications.show({
          color: 'red',
          message: t('tradingAccounts.settings.error', { reason: failureReason(error) }),
        }),
    });
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
      noValidate
      data-testid="settings-form"
    >
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <Switch
          label={t('tradingAccounts.settings.tradingEnabled')}
          description={
            draft.trading_enabled ? t('tradingAccounts.settings.enabled') : t('tradingAccounts.settings.disabled')
          }
          checked={draft.trading_enabled}
          onChange={(event) => change({ trading_enabled: event.currentTarget.checked })}
          data-testid="settings-trading-enabled"
        />
        <TextInput
          label={t('tradingAccounts.settings.maxTradeAmount')}
          leftSection="$"
          inputMode="decimal"
          value={draft.max_trade_amount}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (acceptsMaxAmountInput(value)) change({ max_trade_amount: value });
          }}
          error={errors.includes('maxAmount') ? t('tradingAccounts.settings.maxAmountError') : undefined}
          data-testid="settings-max-amount"
        />
        <TextInput
          label={t('tradingAccounts.settings.payoutPercentage')}
          rightSection="%"
          inputMode="decimal"
          value={draft.payout_percentage}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (acceptsPayoutInput(value)) change({ payout_percentage: value });
          }}
          error={errors.includes('payout') ? t('tradingAccounts.settings.payoutError') : undefined}
          description={t('tradingAccounts.settings.payoutHint')}
          data-testid="settings-payout"
        />
      </SimpleGrid>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onCancel} disabled={update.isPending} data-testid="settings-cancel">
          {t('tradingAccounts.settings.cancel')}
        </Button>
        <Button type="submit" loading={update.isPending} data-testid="settings-save">
          {t('tradingAccounts.settings.save')}
        </Button>
      </Group>
    </form>
  );
}

/**
 * §2.17 'Торговые настройки' (D1: trading_enabled, max_trade_amount, payout_percentage; nothing that decides results).
 * 'Редактировать' opens the form; 'Отмена' closes it and reloads the account.
 */
export function SettingsCard({
  account,
  editing,
  onEdit,
  onDone,
  onCancel,
}: {
  account: TradingAccount;
  editing: boolean;
  onEdit: () => void;
  onDone: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} data-testid="settings-card">
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Title order={4}>{t('tradingAccounts.settings.title')}</Title>
        {editing ? null : (
          <Button
            variant="light"
            size="xs"
            leftSection={<IconPencil size={14} />}
            onClick={onEdit}
            data-testid="settings-edit"
          >
            {t('tradingAccounts.settings.edit')}
          </Button>
        )}
      </Group>
      {editing ? (
        <SettingsForm account={account} onDone={onDone} onCancel={onCancel} />
      ) : (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="md">
            <ViewField label={t('tradingAccounts.settings.tradingEnabled')} testId="settings-view-trading">
              <Badge color={account.trading_enabled ? 'teal' : 'red'} variant="light" size="lg">
                {account.trading_enabled
                  ? t('tradingAccounts.settings.enabled')
                  : t('tradingAccounts.settings.disabled')}
              </Badge>
            </ViewField>
            <ViewField label={t('tradingAccounts.settings.maxTradeAmount')} testId="settings-view-max">
              {formatMoney(account.max_trade_amount)}
            </ViewField>
            <ViewField label={t('tradingAccounts.settings.payoutPercentage')} testId="settings-view-payout">
              {account.payout_percentage}%
            </ViewField>
          </SimpleGrid>
        </Stack>
      )}
    </Paper>
  );
}
