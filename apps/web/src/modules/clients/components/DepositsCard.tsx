import { type Deposit } from '@brokerage/shared';
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Paper,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconEdit, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatCount, formatDateTime, formatMoney } from '../../../lib/format';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { ErrorBox } from '../../ui/ErrorBox';
import { depositAmountProblem, MAX_DEPOSIT_DOLLARS } from '../deposit-amount';
import { TruncatedCell } from '../../ui/TruncatedText';
import { useClientDeposits, useCreateDeposit, useDeleteDeposit, useUpdateDeposit } from '../api/client-card';

/**
 * D20 on the card: a deposit whose crediting (or raise) waits for a second staff member, one whose credit was
 * cancelled (recorded, never credited), or one not credited yet (no account or identity unconfirmed).
 */
function CreditState({ deposit }: { deposit: Deposit }) {
  const { t } = useTranslation();
  if (deposit.credit_status === 'pending') {
    return (
      <Badge color="orange" variant="light" size="sm" data-testid="deposit-credit-pending">
        {t('clients.deposits.creditPending')}
      </Badge>
    );
  }
  if (deposit.credited) return null;
  return (
    <Badge color="gray" variant="light" size="sm" data-testid="deposit-not-credited">
      {t(deposit.credit_status === 'cancelled' ? 'clients.deposits.creditCancelled' : 'clients.deposits.notCredited')}
    </Badge>
  );
}

function DepositForm({
  clientId,
  deposit,
  onClose,
}: {
  clientId: number;
  deposit: Deposit | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const create = useCreateDeposit(clientId);
  const update = useUpdateDeposit(clientId);
  const mutation = deposit ? update : create;
  const [amount, setAmount] = useState<number | string>(deposit ? deposit.amount : '');
  const [notes, setNotes] = useState(deposit?.notes ?? '');
  const problem = depositAmountProblem(amount);
  const valid = typeof amount === 'number' && problem === null;

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (typeof amount !== 'number' || !valid) return;
    const done = {
      onSuccess: (answer: Deposit) => {
        // D20: above the threshold the deposit is recorded but its crediting waits for a second person.
        const waits = answer.credit_status === 'pending';
        notifications.show({
          color: waits ? 'orange' : 'green',
          message: t(
            waits ? 'clients.deposits.awaiting' : deposit ? 'clients.deposits.updated' : 'clients.deposits.added',
          ),
        });
        onClose();
      },
    };
    if (deposit) update.mutate({ id: deposit.id, body: { amount, notes } }, done);
    else create.mutate({ client_id: clientId, amount, notes }, done);
  };

  return (
    <form onSubmit={submit} noValidate data-testid="deposit-form">
      <Stack>
        <ErrorBox message={mutation.error ? errorText(mutation.error, t('clients.deposits.saveError')) : null} />
        <NumberInput
          label={t('clients.deposits.amount')}
          required
          min={0.01}
          clampBehavior="none"
          step={0.01}
          decimalScale={2}
          prefix="$"
          value={amount}
          onChange={setAmount}
          error={
            problem
              ? t(`clients.deposits.amountProblem.${problem}`, { max: formatMoney(MAX_DEPOSIT_DOLLARS) })
              : undefined
          }
          data-autofocus
          data-testid="deposit-amount"
        />
        <Textarea
          label={t('clients.deposits.notes')}
          value={notes}
          onChange={(event) => setNotes(event.currentTarget.value)}
          autosize
          maxRows={8}
          minRows={2}
          data-testid="deposit-notes"
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={!valid} loading={mutation.isPending} data-testid="deposit-save">
            {t(deposit ? 'clients.card.save' : 'clients.deposits.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6 deposits card: the client's deposits with type, amount, notes, author and date; add, edit and delete. */
export function DepositsCard({ clientId, timeZone }: { clientId: number; timeZone: string }) {
  const { t } = useTranslation();
  const deposits = useClientDeposits(clientId);
  const remove = useDeleteDeposit(clientId);
  const [editing, setEditing] = useState<Deposit | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Deposit | null>(null);
  const items = deposits.data?.items ?? [];
  const summary = deposits.data?.summary;

  const confirmDelete = () => {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('clients.deposits.deleted') });
        setDeleting(null);
      },
      onError: (error) => {
        notifications.show({ color: 'red', message: errorText(error, t('clients.deposits.deleteError')) });
        setDeleting(null);
      },
    });
  };

  return (
    <Paper withBorder radius="md" p="md" data-testid="client-deposits">
      <Group justify="space-between" mb="md">
        <Title order={4}>{t('clients.deposits.title')}</Title>
        <Button
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => setEditing('new')}
          data-testid="deposit-add"
        >
          {t('clients.deposits.add')}
        </Button>
      </Group>
      <ErrorBox message={deposits.error ? errorText(deposits.error, t('clients.deposits.loadError')) : null} />
      <Table.ScrollContainer minWidth={600}>
        <Table verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('clients.deposits.date')}</Table.Th>
              <Table.Th>{t('clients.deposits.type')}</Table.Th>
              <Table.Th ta="right">{t('clients.deposits.amount')}</Table.Th>
              <Table.Th>{t('clients.deposits.notes')}</Table.Th>
              <Table.Th>{t('clients.deposits.createdBy')}</Table.Th>
              <Table.Th>{t('clients.deposits.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {!deposits.isPending && items.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={6}>
                  <Text ta="center" c="dimmed" size="sm">
                    {t('clients.deposits.empty')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
            {items.map((deposit) => (
              <Table.Tr key={deposit.id} data-testid="deposit-row" data-deposit-type={deposit.deposit_type}>
                <Table.Td>
                  <Text size="sm">{formatDateTime(deposit.created_at, timeZone)}</Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={deposit.deposit_type === 'ftd' ? 'green' : 'blue'} variant="light">
                    {t(`clients.deposits.types.${deposit.deposit_type}`)}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right">
                  <Text size="sm" data-testid="deposit-amount-cell">
                    {formatMoney(deposit.amount)}
                  </Text>
                  <CreditState deposit={deposit} />
                </Table.Td>
                <TruncatedCell value={deposit.notes || t('common.dash')} />
                <TruncatedCell value={deposit.created_by_name || t('common.dash')} />
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <ActionIcon
                      variant="subtle"
                      aria-label={t('clients.deposits.edit')}
                      onClick={() => setEditing(deposit)}
                      data-testid="deposit-edit"
                    >
                      <IconEdit size={16} />
                    </ActionIcon>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t('clients.deposits.delete')}
                      onClick={() => setDeleting(deposit)}
                      data-testid="deposit-delete"
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {summary ? (
        <Group justify="space-between" mt="sm" data-testid="deposits-summary">
          <Text size="sm">{t('clients.deposits.totalCount', { count: formatCount(summary.count) })}</Text>
          <Text size="sm" fw={600}>
            {t('clients.deposits.totalAmount', { amount: formatMoney(summary.total_amount) })}
          </Text>
        </Group>
      ) : null}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={t(editing === 'new' ? 'clients.deposits.addTitle' : 'clients.deposits.editTitle')}
        centered
      >
        {editing !== null ? (
          <DepositForm
            clientId={clientId}
            deposit={editing === 'new' ? null : editing}
            onClose={() => setEditing(null)}
          />
        ) : null}
      </Modal>
      <ConfirmModal
        opened={deleting !== null}
        title={t('clients.deposits.deleteTitle')}
        text={deleting ? t('clients.deposits.deleteConfirm', { amount: formatMoney(deleting.amount) }) : ''}
        confirmLabel={t('clients.deposits.delete')}
        loading={remove.isPending}
        onConfirm={confirmDelete}
        onClose={() => setDeleting(null)}
      />
    </Paper>
  );
}
