import type { TradeVoidRequest } from '@brokerage/shared';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatMoney } from '../../../lib/format';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { useConfirmVoid, useRejectVoid, useWithdrawVoid } from '../api/void-requests';

export type VoidAction = 'confirm' | 'reject' | 'withdraw';
export type VoidTarget = { request: TradeVoidRequest; action: VoidAction } | null;

/** Per action: the dialog's texts, its confirm button's colour, and the notification's colour. */
const ACTIONS = {
  confirm: { title: 'voids.confirmTitle', text: 'voids.confirmText', submit: 'voids.confirm', color: 'green' },
  reject: { title: 'voids.rejectTitle', text: 'voids.rejectText', submit: 'voids.rejectSubmit', color: 'red' },
  withdraw: { title: 'voids.withdrawTitle', text: 'voids.withdrawText', submit: 'voids.withdrawSubmit', color: 'red' },
} as const;

/**
 * The confirmation before a trade is voided (its stake returned), the rejection with its required reason, and the
 * requester's withdrawal of their own request; each shows who asked and why (issue 20 finding 11).
 */
export function VoidRequestActionModal({ target, onClose }: { target: VoidTarget; onClose: () => void }) {
  const { t } = useTranslation();
  const confirm = useConfirmVoid();
  const reject = useRejectVoid();
  const withdraw = useWithdrawVoid();
  const action = target?.action ?? 'confirm';
  const request = target?.request;
  const close = () => {
    confirm.reset();
    reject.reset();
    withdraw.reset();
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
  const submit = (reason: string) => {
    if (!request) return;
    if (action === 'confirm') {
      confirm.mutate(request.id, { onSuccess: () => done(t('voids.confirmed', params), 'green'), onError: failed });
    } else if (action === 'withdraw') {
      withdraw.mutate(request.id, { onSuccess: () => done(t('voids.withdrawn', params), 'orange'), onError: failed });
    } else {
      reject.mutate(
        { id: request.id, reason },
        { onSuccess: () => done(t('voids.rejected', params), 'orange'), onError: failed },
      );
    }
  };
  const texts = ACTIONS[action];
  return (
    <ConfirmModal
      opened={target !== null}
      onClose={close}
      title={t(texts.title)}
      text={t(texts.text, params)}
      detail={request ? t('voids.reasonLine', { name: request.requested_by_name, reason: request.reason }) : null}
      confirmLabel={t(texts.submit)}
      color={texts.color}
      reason={
        action === 'reject'
          ? { label: t('voids.rejectReason'), required: true, testId: 'void-reject-reason' }
          : undefined
      }
      loading={confirm.isPending || reject.isPending || withdraw.isPending}
      onConfirm={submit}
      testId="void-request-dialog"
      confirmTestId="void-request-dialog-submit"
    />
  );
}
