import { voidTradeRequestSchema, type AdminTrade } from '@brokerage/shared';
import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/format';
import { schemaValidator } from '../../../lib/validation';

interface VoidValues {
  trade_id: number;
  reason: string;
}

function VoidForm({
  trade,
  voiding,
  onConfirm,
  onClose,
}: {
  trade: AdminTrade;
  voiding: boolean;
  onConfirm: (reason: string) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const form = useForm<VoidValues>({
    mode: 'controlled',
    initialValues: { trade_id: trade.id, reason: '' },
    validate: schemaValidator<VoidValues>(voidTradeRequestSchema, t),
  });
  const submit = form.onSubmit((values) => onConfirm(voidTradeRequestSchema.parse(values).reason));
  return (
    <form onSubmit={submit} noValidate data-testid="void-trade-form">
      <Stack>
        <Text size="sm">
          {t('tradingAccounts.voidModal.text', { asset: trade.asset, amount: formatMoney(trade.amount) })}
        </Text>
        <Textarea
          label={t('tradingAccounts.voidModal.reason')}
          placeholder={t('tradingAccounts.voidModal.reasonPlaceholder')}
          required
          autosize
          maxRows={8}
          minRows={3}
          maxLength={500}
          data-autofocus
          {...form.getInputProps('reason')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={voiding}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" color="red" loading={voiding} data-testid="void-confirm">
            {t('tradingAccounts.voidModal.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * D1: 'Аннулировать' asks for a required reason and sends the void for confirmation: a second staff member with
 * finance.approve voids the trade and returns the stake (issue 20 finding 11).
 */
export function VoidTradeModal({
  trade,
  opened,
  voiding,
  onConfirm,
  onClose,
  onExited,
}: {
  trade: AdminTrade | null;
  opened: boolean;
  voiding: boolean;
  onConfirm: (reason: string) => void;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={voiding ? () => undefined : onClose}
      onExitTransitionEnd={onExited}
      title={trade ? t('tradingAccounts.voidModal.title', { id: trade.id }) : ''}
      centered
    >
      {trade ? (
        <VoidForm key={trade.id} trade={trade} voiding={voiding} onConfirm={onConfirm} onClose={onClose} />
      ) : null}
    </Modal>
  );
}
