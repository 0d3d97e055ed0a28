import { can, type StaffDepositMethod } from '@brokerage/shared';
import { Alert, Badge, Button, Group, Loader, Paper, Stack, Tabs, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconInfoCircle, IconPencil, IconPower } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { roleLabelKey } from '../../ui/role-label';
import { useDepositMethods, useUpdateDepositMethod } from '../api/trading-platform';
import { EditDepositMethodModal } from './EditDepositMethodModal';

/** §2.15's sub-tabs; a method of type 'other' gets its own tab when there is one. */
const SPEC_TYPES = ['visa_mastercard', 'bank_card', 'crypto'] as const;
type MethodType = StaffDepositMethod['type'];

function typeLabel(type: MethodType, t: TFunction): string {
  return t(`tradingPlatform.methodTypes.${type}`);
}

function MethodCard({
  method,
  editable,
  toggling,
  onToggle,
  onEdit,
}: {
  method: StaffDepositMethod;
  editable: boolean;
  toggling: boolean;
  onToggle: () => void;
  onEdit: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Paper withBorder radius="md" p="md" data-testid="deposit-method" data-method-id={method.id}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4} style={{ flex: '1 1 260px', minWidth: 0 }}>
          <Group gap="sm">
            <Text fw={600}>{method.title}</Text>
            <Badge color={method.enabled ? 'teal' : 'gray'} variant="light" data-testid="deposit-method-state">
              {method.enabled ? t('tradingPlatform.methods.enabled') : t('tradingPlatform.methods.disabled')}
            </Badge>
          </Group>
          {method.description ? (
            <Text size="sm" c="dimmed">
              {method.description}
            </Text>
          ) : null}
          <Text size="sm" fw={500} mt={4}>
            {t('tradingPlatform.methods.details')}
          </Text>
          {method.details ? (
            <Text size="sm" ff="monospace" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {method.details}
            </Text>
          ) : (
            <Text size="sm" c="dimmed" fs="italic">
              {t('tradingPlatform.methods.noDetails')}
            </Text>
          )}
        </Stack>
        {editable ? (
          <Group gap="xs">
            <Button
              size="xs"
              variant="light"
              color={method.enabled ? 'red' : 'teal'}
              leftSection={<IconPower size={14} />}
              loading={toggling}
              onClick={onToggle}
              data-testid="deposit-method-toggle"
            >
              {method.enabled ? t('tradingPlatform.methods.disable') : t('tradingPlatform.methods.enable')}
            </Button>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconPencil size={14} />}
              onClick={onEdit}
              data-testid="deposit-method-edit"
            >
              {t('tradingPlatform.methods.edit')}
            </Button>
          </Group>
        ) : null}
      </Group>
    </Paper>
  );
}

/** §2.15 tab 'Пополнение': the methods by type; a superadmin toggles and edits them, others read the note. */
export function DepositMethodsTab() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const editable = can(user.role, 'deposit_methods.edit');
  const methods = useDepositMethods();
  const update = useUpdateDepositMethod();
  const [editing, setEditing] = useState<{ method: StaffDepositMethod; open: boolean } | null>(null);

  const all = methods.data ?? [];
  const types: MethodType[] = [...SPEC_TYPES];
  if (all.some((m) => m.type === 'other')) types.push('other');

  const toggle = (method: StaffDepositMethod) =>
    update.mutate(
      { id: method.id, body: { enabled: !method.enabled } },
      {
        onError: (error) => {
          console.error('Deposit method toggle failed', error);
          notifications.show({ color: 'red', message: t('tradingPlatform.methods.updateError') });
        },
      },
    );
  const togglingId =
    update.isPending && update.variables && !('title' in update.variables.body) ? update.variables.id : null;

  return (
    <Stack gap="md">
      {editable ? null : (
        <Alert color="blue" variant="light" icon={<IconInfoCircle size={18} />} data-testid="deposit-methods-info">
          <Text size="sm">
            <Text span fw={600}>
              {t('tradingPlatform.methods.infoTitle')}
            </Text>{' '}
            {t('tradingPlatform.methods.infoText', { role: t(roleLabelKey(user.role)) })}
          </Text>
        </Alert>
      )}
      {methods.isError ? (
        <Alert color="red">{errorText(methods.error, t('tradingPlatform.methods.loadError'))}</Alert>
      ) : null}
      <Tabs defaultValue={SPEC_TYPES[0]} variant="pills">
        <Tabs.List mb="md">
          {types.map((type) => (
            <Tabs.Tab key={type} value={type} data-testid={`deposit-type-${type}`}>
              <Stack gap={0} align="flex-start">
                <Text span size="sm" fw={600}>
                  {typeLabel(type, t)}
                </Text>
                <Text span size="xs">
                  {t(`tradingPlatform.methodTypeHints.${type}`)}
                </Text>
              </Stack>
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {types.map((type) => {
          const ofType = all.filter((m) => m.type === type);
          return (
            <Tabs.Panel key={type} value={type}>
              {methods.isPending ? (
                <Group gap="sm" py="md" justify="center" role="status">
                  <Loader size="sm" />
                  <Text>{t('tradingPlatform.methods.loading')}</Text>
                </Group>
              ) : ofType.length === 0 ? (
                <Text c="dimmed" ta="center" py="md" data-testid="deposit-methods-empty">
                  {t('tradingPlatform.methods.empty', { label: typeLabel(type, t) })}
                </Text>
              ) : (
                <Stack gap="sm">
                  {ofType.map((method) => (
                    <MethodCard
                      key={method.id}
                      method={method}
                      editable={editable}
                      toggling={togglingId === method.id}
                      onToggle={() => toggle(method)}
                      onEdit={() => setEditing({ method, open: true })}
                    />
                  ))}
                </Stack>
              )}
            </Tabs.Panel>
          );
        })}
      </Tabs>
      {editable ? (
        <EditDepositMethodModal
          method={editing?.method ?? null}
          opened={editing?.open ?? false}
          onClose={() => setEditing((current) => (current ? { ...current, open: false } : null))}
          onExited={() => setEditing(null)}
        />
      ) : null}
    </Stack>
  );
}
