import { can, type ManualCredit } from '@brokerage/shared';
import { Button, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '../../../lib/api';
import { formatAge, formatDateTime, formatMoney } from '../../../lib/format';
import { useCurrentUser } from '../../auth/current-user';
import { useIsPhone } from '../../ui/media';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { TablePager } from '../../ui/TablePager';
import { DataTable } from '../../ui/DataTable';
import { Field } from '../../ui/Field';
import { useCancelCredit, useConfirmCredit, useManualCredits } from '../api/manual-credits';

/** What the credit is: a balance change ('add' / 'set' as asked), a deposit's crediting, or an edit's difference. */
export function creditKindText(credit: ManualCredit, t: TFunction): string {
  if (credit.kind === 'balance_change' && credit.requested_action === 'set' && credit.requested_amount !== null) {
    return t('credits.kinds.balance_set', { amount: formatMoney(credit.requested_amount) });
  }
  return t(`credits.kinds.${credit.kind}`);
}

type Target = { credit: ManualCredit; action: 'confirm' | 'cancel' } | null;

function CreditActions({ credit, onAct }: { credit: ManualCredit; onAct: (target: Target) => void }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  if (!can(user.role, 'finance.approve')) return <Text size="sm">{t('common.dash')}</Text>;
  // Whether this person may be the second one is the server's answer (D20), not restated here.
  return (
    <Group gap={6} wrap="nowrap">
      {!credit.can_confirm && credit.confirm_blocked === 'manual_credit_own' ? (
        <Text size="xs" c="dimmed" data-testid="credit-own">
          {t('credits.own')}
        </Text>
      ) : (
        <Button
          size="xs"
          color="green"
          onClick={() => onAct({ credit, action: 'confirm' })}
          data-testid="credit-confirm"
        >
          {t('credits.confirm')}
        </Button>
      )}
      <Button
        size="xs"
        color="red"
        variant="light"
        onClick={() => onAct({ credit, action: 'cancel' })}
        data-testid="credit-cancel"
      >
        {t('credits.cancel')}
      </Button>
    </Group>
  );
}

/** The confirmation before posting the money, and the cancellation with its required reason. */
function CreditActionModal({ target, onClose }: { target: Target; onClose: () => void }) {
  const { t } = useTranslation();
  const confirm = useConfirmCredit();
  const cancel = useCancelCredit();
  const action = target?.action ?? 'confirm';
  const credit = target?.credit;
  const close = () => {
    confirm.reset();
    cancel.reset();
    onClose();
  };
  const params = credit
    ? { id: credit.id, name: credit.client_name || `#${credit.client_id}`, amount: formatMoney(credit.amount) }
    : { id: 0, name: '', amount: '' };
  const done = (message: string, color: string) => {
    notifications.show({ color, message });
    close();
  };
  const failed = (error: unknown) => {
    notifications.show({ color: 'red', message: errorText(error, t('credits.error')) });
    close();
  };
  const submit = (reason: string) => {
    if (!credit) return;
    if (action === 'confirm') {
      // The amount shown in the dialog goes with the confirmation: the server posts exactly it, or refuses.
      confirm.mutate(
        { id: credit.id, amount: credit.amount },
        { onSuccess: () => done(t('credits.confirmed', params), 'green'), onError: failed },
      );
      return;
    }
    cancel.mutate(
      { id: credit.id, reason },
      { onSuccess: () => done(t('credits.cancelled', params), 'orange'), onError: failed },
    );
  };
  return (
    <ConfirmModal
      opened={target !== null}
      onClose={close}
      title={t(action === 'confirm' ? 'credits.confirmTitle' : 'credits.cancelTitle')}
      text={t(action === 'confirm' ? 'credits.confirmText' : 'credits.cancelText', params)}
      detail={credit?.reason ? t('credits.reasonLine', { reason: credit.reason }) : null}
      confirmLabel={t(action === 'confirm' ? 'credits.confirm' : 'credits.cancelSubmit')}
      color={action === 'confirm' ? 'green' : 'red'}
      reason={
        action === 'cancel'
          ? { label: t('credits.cancelReason'), required: true, testId: 'credit-cancel-reason' }
          : undefined
      }
      loading={confirm.isPending || cancel.isPending}
      onConfirm={submit}
      testId="credit-dialog"
      confirmTestId="credit-dialog-submit"
    />
  );
}

/**
 * The 'Подтверждения' tab of /crm/applications (decisions.md D20): the manual credits of the clients in scope that
 * wait for a second staff member, oldest first, with author, client, amount, reason and age. Confirm (after a dialog)
 * and Cancel (with a reason) for finance.approve users who are not the credit's author. Cards on phones.
 */
export function Confirmations() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const isPhone = useIsPhone();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [target, setTarget] = useState<Target>(null);
  const credits = useManualCredits({ status: 'pending', page, perPage });
  const items = credits.data?.items ?? [];
  const dash = t('common.dash');
  const clientLink = (credit: ManualCredit) => (
    <Text size="sm" fw={500} component={Link} to={`/crm/clients/${credit.client_id}`}>
      {credit.client_name || dash}
    </Text>
  );

  return (
    <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }} data-testid="confirmations">
      <Text size="sm" c="dimmed" mb="sm">
        {t('credits.intro')}
      </Text>
      {credits.isError ? (
        <LoadErrorAlert
          title={t('credits.loadError')}
          error={credits.error}
          onRetry={() => void credits.refetch()}
          testId="credits-error"
        />
      ) : null}
      {isPhone ? (
        <Stack gap="sm" component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="credit-cards">
          {credits.isPending ? <Text ta="center">{t('credits.loading')}</Text> : null}
          {!credits.isPending && !credits.isError && items.length === 0 ? (
            <Text ta="center" c="dimmed" py="md" data-testid="credits-empty">
              {t('credits.empty')}
            </Text>
          ) : null}
          {items.map((credit) => (
            <Paper component="li" key={credit.id} withBorder radius="md" p="sm" data-testid="credit-row">
              <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs" mb="xs">
                <div style={{ minWidth: 0 }}>
                  {clientLink(credit)}
                  <Text size="xs" c="dimmed">
                    {creditKindText(credit, t)}
                  </Text>
                </div>
                <Text fw={700} style={{ whiteSpace: 'nowrap' }} data-testid="credit-amount">
                  {formatMoney(credit.amount)}
                </Text>
              </Group>
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={6} mb="sm">
                <Field label={t('credits.columns.author')}>{credit.created_by_name}</Field>
                <Field label={t('credits.columns.age')}>{formatAge(credit.age_seconds, t)}</Field>
                <Field label={t('credits.columns.reason')} wide>
                  {credit.reason || dash}
                </Field>
              </SimpleGrid>
              <CreditActions credit={credit} onAct={setTarget} />
            </Paper>
          ))}
        </Stack>
      ) : (
        <DataTable
          items={items}
          rowKey={(credit) => credit.id}
          rowProps={(credit) => ({ 'data-testid': 'credit-row', 'data-credit-id': credit.id })}
          minWidth={860}
          testId="credit-table"
          loading={credits.isPending}
          loadingText={t('credits.loading')}
          empty={!credits.isPending && !credits.isError && items.length === 0}
          emptyText={t('credits.empty')}
          emptyTestId="credits-empty"
          columns={[
            {
              key: 'client',
              header: t('credits.columns.client'),
              cell: (credit) => (
                <>
                  {clientLink(credit)}
                  <Text size="xs" c="dimmed">
                    {t('credits.clientId', { id: credit.client_id })}
                  </Text>
                </>
              ),
            },
            {
              key: 'amount',
              header: t('credits.columns.amount'),
              align: 'right',
              cell: (credit) => (
                <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }} data-testid="credit-amount">
                  {formatMoney(credit.amount)}
                </Text>
              ),
            },
            {
              key: 'kind',
              header: t('credits.columns.kind'),
              cell: (credit) => (
                <Text size="sm" c={credit.kind === 'balance_change' ? 'grape' : 'blue'} fw={500}>
                  {creditKindText(credit, t)}
                </Text>
              ),
            },
            {
              key: 'reason',
              header: t('credits.columns.reason'),
              cell: (credit) => (
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {credit.reason || dash}
                </Text>
              ),
            },
            {
              key: 'author',
              header: t('credits.columns.author'),
              cell: (credit) => <Text size="sm">{credit.created_by_name}</Text>,
            },
            {
              key: 'age',
              header: t('credits.columns.age'),
              cell: (credit) => (
                <Text size="sm" title={formatDateTime(credit.created_at, user.business_timezone)}>
                  {formatAge(credit.age_seconds, t)}
                </Text>
              ),
            },
            {
              key: 'actions',
              header: t('credits.columns.actions'),
              cell: (credit) => <CreditActions credit={credit} onAct={setTarget} />,
            },
          ]}
        />
      )}
      <TablePager
        page={page}
        perPage={perPage}
        total={credits.data?.total ?? 0}
        onPageChange={setPage}
        onPerPageChange={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
      <CreditActionModal target={target} onClose={() => setTarget(null)} />
    </Paper>
  );
}

/** The pending credits of an account or a client, as a short note (the account detail, the deposits card). */
export function PendingCreditsNote({ credits, testId }: { credits: readonly ManualCredit[]; testId?: string }) {
  const { t } = useTranslation();
  if (credits.length === 0) return null;
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      bg="var(--mantine-color-orange-light)"
      data-testid={testId ?? 'pending-credits'}
    >
      <Text fw={600} size="sm" mb={4}>
        {t('credits.pendingTitle', { count: credits.length })}
      </Text>
      <Stack gap={2}>
        {credits.map((credit) => (
          <Text size="sm" key={credit.id} data-testid="pending-credit">
            {t('credits.pendingLine', {
              amount: formatMoney(credit.amount),
              kind: creditKindText(credit, t),
              author: credit.created_by_name,
              age: formatAge(credit.age_seconds, t),
            })}
            {credit.reason ? ` — ${credit.reason}` : ''}
          </Text>
        ))}
      </Stack>
      <Text size="xs" c="dimmed" mt={4}>
        {t('credits.pendingHint')}
      </Text>
    </Paper>
  );
}
