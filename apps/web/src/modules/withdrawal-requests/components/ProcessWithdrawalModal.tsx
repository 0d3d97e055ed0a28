import type { StaffWithdrawRequest } from '@brokerage/shared';
import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatMoney } from '../../../lib/format';
import { useProcessWithdrawal } from '../api/withdrawal-requests';

export type WithdrawalAction = 'approve' | 'reject';

/**
 * The confirmation before approving or rejecting a request (§2.9, §8 messages). Reject may carry a reason, which the
 * server keeps with the request. The outcome is told with the spec's texts; the list is re-fetched either way.
 */
export function ProcessWithdrawalModal({
  target,
  onClose,
}: {
  target: { request: StaffWithdrawRequest; action: WithdrawalAction } | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const process = useProcessWithdrawal();
  const [reason, setReason] = useState('');
  const action = target?.action ?? 'approve';
  const request = target?.request;

  const close = () => {
    setReason('');
    process.reset();
    onClose();
  };

  const confirm = () => {
    if (!request) return;
    process.mutate(
      { id: request.id, action, reason: reason.trim() || undefined },
      {
        onSuccess: (answer) => {
          // Four-eyes (D20): a first approval leaves the request waiting for a second person.
          const waits = answer.status === 'awaiting_second_approval';
          notifications.show({
            color: action === 'approve' && !waits ? 'green' : 'orange',
            message: t(
              action === 'approve'
                ? waits
                  ? 'withdrawals.firstApproved'
                  : 'withdrawals.approved'
                : 'withdrawals.rejected',
            ),
          });
          close();
        },
        onError: (error) => {
          const detail = error instanceof ApiError && error.detail ? error.detail : error.message;
          notifications.show({
            color: 'red',
            message: t(action === 'approve' ? 'withdrawals.approveError' : 'withdrawals.rejectError', { detail }),
          });
          close();
        },
      },
    );
  };

  const params = request
    ? { id: request.id, name: request.client_name || `#${request.client_id}`, amount: formatMoney(request.amount) }
    : { id: 0, name: '', amount: '' };

  const textKey =
    action === 'reject'
      ? 'withdrawals.rejectText'
      : request?.status === 'awaiting_second_approval'
        ? 'withdrawals.approveSecondText'
        : request?.needs_second_approval
          ? 'withdrawals.approveFirstText'
          : 'withdrawals.approveText';

  return (
    <Modal
      opened={target !== null}
      onClose={close}
      title={t(action === 'approve' ? 'withdrawals.approveTitle' : 'withdrawals.rejectTitle')}
      centered
    >
      <Stack data-testid="withdrawal-confirm">
        <Text>{t(textKey, params)}</Text>
        {action === 'reject' ? (
          <Textarea
            label={t('withdrawals.rejectReason')}
            value={reason}
            maxLength={500}
            autosize
            minRows={2}
            onChange={(event) => setReason(event.currentTarget.value)}
            data-testid="withdrawal-reject-reason"
          />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {tr('common.cancel')}
          </Button>
          <Button
            color={action === 'approve' ? 'green' : 'red'}
            loading={process.isPending}
            onClick={confirm}
            data-autofocus
            data-testid="withdrawal-confirm-button"
          >
            {t(action === 'approve' ? 'withdrawals.approve' : 'withdrawals.reject')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
