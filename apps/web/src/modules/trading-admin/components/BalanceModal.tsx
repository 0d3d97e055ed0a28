import { centsToDollars, type TradingAccount } from '@brokerage/shared';
import { Button, Group, Modal, Paper, SegmentedControl, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowRight } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { formatMoney } from '../../../lib/format';
import { newIdempotencyKey } from '../../../lib/idempotency';
import { useChangeBalance } from '../api/trading-admin';
import { failureReason } from '../failure-text';
import {
  BALANCE_ACTIONS,
  acceptsBalanceInput,
  balanceAmountCents,
  balanceApplyEnabled,
  isBalanceAction,
  resultingBalanceCents,
  type BalanceAction,
} from '../forms';

const REASON_MAX = 500;

function BalanceForm({ account, onClose }: { account: TradingAccount; onClose: () => void }) {
  const { t } = useTranslation();
  const change = useChangeBalance(account.id);
  const [action, setAction] = useState<BalanceAction>('add');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [amountError, setAmountError] = useState<string | null>(null);
  const [reasonError, setReasonError] = useState<string | null>(null);
  /**
   * The Idempotency-Key of the change on the form: made at its first submit and sent again by any repeat of it (a
   * double click, a retry after a lost answer), so the server applies it once. Editing the form, or a refusal by the
   * server, starts a new change with a new key.
   */
  const key = useRef<string | null>(null);
  const edited = () => (key.current = null);

  const cents = balanceAmountCents(amount);
  const result =
    cents === null || !balanceApplyEnabled(amount) ? null : resultingBalanceCents(account.balance, action, cents);
  const negative = result !== null && result < 0;

  const submit = () => {
    // §5: a non-number or a negative amount answers 'Введите корректную сумму' (so do more than 2 decimals).
    if (cents === null) {
      setAmountError(t('validation.invalid_amount'));
      return;
    }
    if (!reason.trim()) {
      setReasonError(t('validation.required'));
      return;
    }
    if (negative) return;
    key.current ??= newIdempotencyKey();
    change.mutate(
      { body: { action, amount: centsToDollars(cents), reason: reason.trim() }, idempotencyKey: key.current },
      {
        onSuccess: (answer) => {
          // D20: a raise above the threshold waits for a second staff member; nothing moved yet.
          if ('status' in answer) {
            notifications.show({
              color: 'orange',
              title: t('tradingAccounts.balanceModal.awaitingTitle'),
              message: t('tradingAccounts.balanceModal.awaiting', { amount: formatMoney(answer.amount) }),
            });
          } else {
            notifications.show({ color: 'green', message: t('tradingAccounts.balanceModal.success') });
          }
          onClose();
        },
        onError: (error) => {
          // A refusal is the server's answer to this change; a lost answer keeps the key for the retry.
          if (error instanceof ApiError && error.status > 0 && error.status < 500) edited();
          notifications.show({
            color: 'red',
            message: t('tradingAccounts.balanceModal.error', { reason: failureReason(error) }),
          });
        },
      },
    );
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      noValidate
      data-testid="balance-form"
    >
      <Stack>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('tradingAccounts.balanceModal.action')}
          </Text>
          <SegmentedControl
            fullWidth
            value={action}
            onChange={(value) => {
              if (!isBalanceAction(value)) return;
              setAction(value);
              edited();
            }}
            data={BALANCE_ACTIONS.map((value) => ({
              value,
              label: t(`tradingAccounts.balanceModal.actions.${value}`),
            }))}
            aria-label={t('tradingAccounts.balanceModal.action')}
            data-testid="balance-action"
          />
        </div>
        <TextInput
          label={t('tradingAccounts.balanceModal.amount')}
          inputMode="decimal"
          required
          data-autofocus
          value={amount}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (!acceptsBalanceInput(value)) return;
            setAmount(value);
            setAmountError(null);
            edited();
          }}
          error={amountError}
          data-testid="balance-amount"
        />
        <Textarea
          label={t('tradingAccounts.balanceModal.reason')}
          placeholder={t('tradingAccounts.balanceModal.reasonPlaceholder')}
          required
          autosize
          maxRows={8}
          minRows={2}
          maxLength={REASON_MAX}
          value={reason}
          onChange={(event) => {
            setReason(event.currentTarget.value);
            setReasonError(null);
            edited();
          }}
          error={reasonError}
          data-testid="balance-reason"
        />
        <Paper withBorder radius="md" p="sm" bg="var(--mantine-color-default-hover)" data-testid="balance-preview">
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <div>
              <Text size="xs" c="dimmed">
                {t('tradingAccounts.balanceModal.current')}
              </Text>
              <Text fw={600}>{formatMoney(account.balance)}</Text>
            </div>
            <IconArrowRight size={18} />
            <div style={{ textAlign: 'right' }}>
              <Text size="xs" c="dimmed">
                {t('tradingAccounts.balanceModal.result')}
              </Text>
              <Text fw={700} c={negative ? 'red' : undefined} data-testid="balance-result">
                {result === null
                  ? t('common.dash')
                  : `${result < 0 ? '\u2212' : ''}${formatMoney(centsToDollars(result))}`}
              </Text>
            </div>
          </Group>
          {negative ? (
            <Text size="sm" c="red" mt="xs" data-testid="balance-negative">
              {t('tradingAccounts.balanceModal.negative')}
            </Text>
          ) : null}
        </Paper>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={change.isPending}>
            {t('common.cancel')}
          </Button>
          <Button
            type="submit"
            loading={change.isPending}
            disabled={!balanceApplyEnabled(amount) || negative}
            data-testid="balance-submit"
          >
            {t('tradingAccounts.balanceModal.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * §2.17 'Изменить баланс': set, add or subtract an amount with a required reason; the resulting balance is shown
 * before applying. The server records it as one ledger entry with that reason (D3) and refuses a balance below 0.
 */
export function BalanceModal({
  account,
  opened,
  formKey,
  onClose,
}: {
  account: TradingAccount;
  opened: boolean;
  /** A new key for each opening: the form starts empty every time. */
  formKey: number;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('tradingAccounts.balanceModal.title')} centered>
      <BalanceForm key={formKey} account={account} onClose={onClose} />
    </Modal>
  );
}
