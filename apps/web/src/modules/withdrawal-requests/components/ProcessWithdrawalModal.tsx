import type { StaffWithdrawRequest } from '@brokerage/shared';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatMoney } from '../../../lib/format';
import { ConfirmModal } from '../../ui/ConfirmModal';
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
  const process = useProcessWithdrawal();
  const action = target?.action ?? 'approve';
  const request = target?.request;

  const close = () => {
    process.reset();
    onClose();
  };

  const confirm = (reason: string) => {
    if (!request) return;
    process.mutate(
      { id: request.id, action, reason: reason || undefined },
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
    <ConfirmModal
      opened={target !== null}
      onClose={close}
      title={t(action === 'approve' ? 'withdrawals.approveTitle' : 'withdrawals.rejectTitle')}
      text={t(textKey, params)}
      confirmLabel={t(action === 'approve' ? 'withdrawals.approve' : 'withdrawals.reject')}
      color={action === 'approve' ? 'green' : 'red'}
      reason={
        action === 'reject' ? { label: t('withdrawals.rejectReason'), testId: 'withdrawal-reject-reason' } : undefined
      }
      loading={process.isPending}
      onConfirm={confirm}
      testId="withdrawal-confirm"
      confirmTestId="withdrawal-confirm-button"
    />
  );
}
