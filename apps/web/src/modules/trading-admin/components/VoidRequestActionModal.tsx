import type { TradeVoidRequest } from '@brokerage/shared';
import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatMoney } from '../../../lib/format';
import { useConfirmVoid, useRejectVoid } from '../api/void-requests';

export type VoidTarget = { request: TradeVoidRequest; action: 'confirm' | 'reject' } | null;

/**
 * The confirmation before a trade is voided (its stake returned), and the rejection with its required reason; both
 * show who asked and why (issue 20 finding 11).
 */
export function VoidRequestActionModal({ target, onClose }: { target: VoidTarget; onClose: () => void }) {
  const { t } = useTranslation();
  const confirm = useConfirmVoid();
  const reject = useRejectVoid();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const action = target?.action ?? 'confirm';
  const request = target?.request;
  const close = () => {
    setReason('');
    setReasonError(null);
    confirm.reset();
    reject.reset();
    onClose();
  };
  const params = request
    ? {
        id: request.trade_id,
        asset: request.asset,
        name: request.client_name || `#${request.client_id}`,
        amount: formatMoney(request.amount),
      }
    : { id: 0, asset: '', name: '', amount: '' };
  const done = (message: string, color: string) => {
    notifications.show({ color, message });
    close();
  };
  const failed = (error: unknown) => {
    notifications.show({ color: 'red', message: errorText(error, t('voids.error')) });
    close();
  };
  const submit = () => {
    if (!request) return;
    if (action === 'confirm') {
      confirm.mutate(request.id, { onSuccess: () => done(t('voids.confirmed', params), 'green'), onError: failed });
      return;
    }
    if (!reason.trim()) {
      setReasonError(t('validation.required'));
      return;
    }
    reject.mutate(
      { id: request.id, reason: reason.trim() },
      { onSuccess: () => done(t('voids.rejected', params), 'orange'), onError: failed },
    );
  };
  return (
    <Modal
      opened={target !== null}
      onClose={close}
      title={t(action === 'confirm' ? 'voids.confirmTitle' : 'voids.rejectTitle')}
      centered
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
        noValidate
      >
        <Stack data-testid="void-request-dialog">
          <Text>{t(action === 'confirm' ? 'voids.confirmText' : 'voids.rejectText', params)}</Text>
          {request ? (
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {t('voids.reasonLine', { name: request.requested_by_name, reason: request.reason })}
            </Text>
          ) : null}
          {action === 'reject' ? (
            <Textarea
              label={t('voids.rejectReason')}
              required
              value={reason}
              maxLength={500}
              autosize
              minRows={2}
              error={reasonError}
              data-autofocus
              onChange={(event) => {
                setReason(event.currentTarget.value);
                setReasonError(null);
              }}
              data-testid="void-reject-reason"
            />
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('common.cancel')}
            </Button>
            <Button
              type="submit"
              color={action === 'confirm' ? 'green' : 'red'}
              loading={confirm.isPending || reject.isPending}
              data-autofocus={action === 'confirm' ? true : undefined}
              data-testid="void-request-dialog-submit"
            >
              {t(action === 'confirm' ? 'voids.confirm' : 'voids.rejectSubmit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
