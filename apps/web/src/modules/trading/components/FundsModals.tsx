import type { ClientWithdrawRequest, DepositMethod } from '@brokerage/shared';
import {
  Alert,
  Badge,
  Box,
  Button,
  CopyButton,
  Group,
  Modal,
  Paper,
  Radio,
  Stack,
  Table,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import type { TFunction } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { emailFlowErrorText } from '../../auth/email-errors';
import { useSiteContacts } from '../../auth/api/email';
import { contactsLine } from '../../auth/contacts';
import { useCreateDepositIntent, useCreateWithdrawal, useDepositMethods, useMyWithdrawals } from '../api';
import { formatDateTimeLocal } from '../../../lib/format';
import {
  depositProblem,
  problemKey,
  shapeCardExpiry,
  shapeCardHolder,
  shapeCardNumber,
  usd,
  withdrawProblem,
  withdrawStatusKey,
  type Problem,
  type WithdrawForm,
} from '../rules';
import { newIdempotencyKey } from '../../../lib/idempotency';
import { AmountField } from './AmountField';

export function problemText(problem: Problem, t: TFunction<'platform'>): string {
  // The key is built from the code; every code has its key in the platform files (test/trading-rules.test.ts).
  const translate = t as unknown as (key: string, options?: Record<string, string>) => string;
  return translate(problemKey(problem.code), problem.params ?? {});
}

/** §8: when the methods cannot be loaded, the three built-in ones, each pointing to support. */
function builtInMethods(t: TFunction<'platform'>): DepositMethod[] {
  const titles = { visa_mastercard: 'visaMastercard', bank_card: 'bankCard', crypto: 'crypto' } as const;
  return (['visa_mastercard', 'bank_card', 'crypto'] as const).map((type, i) => ({
    id: -(i + 1),
    type,
    title: t(`deposit.builtIn.${titles[type]}`),
    description: '',
    details: t('deposit.builtInDetails'),
    enabled: true,
  }));
}

/**
 * Top-up (§2.5, changed by D21): amount and one of the enabled methods, then the method's payment details with a copy
 * button. Confirming also records a deposit intent (POST /api/deposit-intents) that tells the client's manager; it is
 * not money: the money arrives by the method's own route and staff record the deposit. The demo and the built-in
 * fallback methods (no server method to name) record nothing.
 *
 * Issue 15 defect 4: the problem line has its space reserved, so the form never changes height when it appears on
 * blur; a centred modal that grew would move under the pointer and the first click on a method would miss.
 */
export function DepositModal({
  opened,
  onClose,
  demo = false,
  onOpenSupport,
}: {
  opened: boolean;
  onClose: () => void;
  demo?: boolean;
  /** Issue 22 §6: opens the 'Поддержка' conversation (the details of a built-in method point there). */
  onOpenSupport?: () => void;
}) {
  const { t } = useTranslation('platform');
  const methods = useDepositMethods(opened);
  // Issue 22 §6: a method without details points to 'Поддержка' and to the site's contacts when filled.
  const contacts = contactsLine(useSiteContacts().data);
  const intent = useCreateDepositIntent();
  const [amount, setAmount] = useState('');
  const [methodId, setMethodId] = useState<string | null>(null);
  const [details, setDetails] = useState<DepositMethod | null>(null);
  const [touched, setTouched] = useState(false);

  const list = methods.isError ? builtInMethods(t) : (methods.data ?? []).filter((m) => m.enabled);
  const problem = depositProblem(amount, methodId);

  const closeAll = () => {
    setDetails(null);
    setAmount('');
    setMethodId(null);
    setTouched(false);
    intent.reset();
    onClose();
  };

  return (
    <>
      <Modal opened={opened && !details} onClose={closeAll} title={t('deposit.title')} centered>
        <form
          data-testid="deposit-form"
          onSubmit={(e) => {
            e.preventDefault();
            setTouched(true);
            if (problem) return;
            const chosen = list.find((m) => String(m.id) === methodId) ?? null;
            setDetails(chosen);
            if (chosen && chosen.id > 0 && !demo) intent.mutate({ amount: Number(amount), method_id: chosen.id });
          }}
        >
          <Stack>
            <AmountField
              label={t('deposit.amount')}
              required
              leftSection="$"
              placeholder="100"
              value={amount}
              onValue={setAmount}
              onBlur={() => setTouched(true)}
              data-testid="deposit-amount"
            />
            {methods.isPending ? (
              <Text c="dimmed" size="sm">
                {t('common.loading')}
              </Text>
            ) : list.length === 0 ? (
              <Text c="dimmed" size="sm">
                {t('deposit.noMethods')}
              </Text>
            ) : (
              <Radio.Group label={t('deposit.method')} required value={methodId} onChange={setMethodId}>
                <Stack gap="xs" mt={4}>
                  {list.map((m) => (
                    <Radio
                      key={m.id}
                      value={String(m.id)}
                      label={m.title}
                      description={m.description || undefined}
                      data-testid="deposit-method"
                    />
                  ))}
                </Stack>
              </Radio.Group>
            )}
            {methods.isError && (
              <Text size="xs" c="dimmed">
                {t('deposit.fallbackNote')}
              </Text>
            )}
            <Box mih={44} aria-live="polite">
              {touched && problem ? (
                <Text size="sm" c="red" role="alert" lineClamp={2} data-testid="deposit-problem">
                  {problemText(problem, t)}
                </Text>
              ) : null}
            </Box>
            <Button type="submit" disabled={problem !== null} data-testid="deposit-submit">
              {t('deposit.submit')}
            </Button>
          </Stack>
        </form>
      </Modal>
      <Modal opened={opened && details !== null} onClose={closeAll} title={t('deposit.detailsTitle')} centered>
        {details && (
          <Stack data-testid="deposit-details">
            <Text>{t('deposit.detailsIntro', { amount: usd(Number(amount)), method: details.title })}</Text>
            {intent.isSuccess ? (
              <Text size="sm" c="teal" data-testid="deposit-intent-sent">
                {t('deposit.intentSent')}
              </Text>
            ) : intent.isError ? (
              <Text size="sm" c="orange" data-testid="deposit-intent-failed">
                {intent.error instanceof ApiError && intent.error.detail
                  ? t('deposit.intentFailedDetail', { detail: emailFlowErrorText(intent.error, intent.error.detail) })
                  : t('deposit.intentFailed')}
              </Text>
            ) : null}
            <Paper withBorder p="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {details.details || t('deposit.builtInDetails')}
            </Paper>
            {!details.details && contacts ? (
              <Text size="sm" c="dimmed" data-testid="deposit-contacts">
                {t('messages.contacts', { contacts })}
              </Text>
            ) : null}
            <Group justify="space-between">
              <CopyButton value={details.details || t('deposit.builtInDetails')} timeout={2000}>
                {({ copied, copy }) => (
                  <Button variant="light" color={copied ? 'teal' : 'blue'} onClick={copy}>
                    {copied ? t('deposit.copied') : t('deposit.copy')}
                  </Button>
                )}
              </CopyButton>
              {onOpenSupport && !details.details ? (
                <Button
                  variant="light"
                  onClick={() => {
                    closeAll();
                    onOpenSupport();
                  }}
                  data-testid="deposit-write-support"
                >
                  {t('deposit.writeSupport')}
                </Button>
              ) : null}
              <Button onClick={closeAll}>{t('deposit.understood')}</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}

const STATUS_COLOR = { pending: 'yellow', approved: 'teal', rejected: 'red' } as const;

/** The client's own withdrawal requests (GET /api/my-withdraw-requests), newest first, with status and reason. */
function MyWithdrawals() {
  const { t } = useTranslation('platform');
  const requests = useMyWithdrawals();
  const items: ClientWithdrawRequest[] = requests.data?.items ?? [];
  return (
    <Stack gap={6} data-testid="my-withdrawals">
      <Title order={5}>{t('withdraw.mine.title')}</Title>
      {requests.isPending ? (
        <Text size="sm" c="dimmed" role="status">
          {t('common.loading')}
        </Text>
      ) : requests.isError ? (
        <Text size="sm" c="red">
          {t('withdraw.mine.loadFailed')}
        </Text>
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="my-withdrawals-empty">
          {t('withdraw.mine.empty')}
        </Text>
      ) : (
        <Box mah={220} style={{ overflowY: 'auto' }}>
          <Table verticalSpacing={4} fz="sm">
            <Table.Tbody>
              {items.map((w) => {
                const key = withdrawStatusKey(w.status);
                return (
                  <Table.Tr key={w.id} data-testid="my-withdrawal" data-status={w.status}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {usd(w.amount)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {formatDateTimeLocal(w.created_at)} · {w.card_number}
                      </Text>
                      {w.status === 'rejected' && w.reject_reason ? (
                        <Text size="xs" c="red" data-testid="my-withdrawal-reason">
                          {t('withdraw.mine.reason', { reason: w.reject_reason })}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td ta="right" style={{ verticalAlign: 'top', whiteSpace: 'nowrap', width: '1%' }}>
                      <Badge
                        color={STATUS_COLOR[key]}
                        variant="light"
                        tt="none"
                        styles={{ root: { overflow: 'visible', maxWidth: 'none' }, label: { overflow: 'visible' } }}
                        data-testid="my-withdrawal-status"
                      >
                        {t(`withdraw.mine.status.${key}`)}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Box>
      )}
    </Stack>
  );
}

function monthNow(): { month: number; year: number } {
  const d = new Date();
  return { month: d.getMonth() + 1, year: d.getFullYear() };
}

const EMPTY: WithdrawForm = { amount: '', cardNumber: '', cardHolder: '', cardExpiry: '' };

/**
 * Withdrawal (§2.6, §5): amount, card number (grouped by 4), holder (upper case), expiry (MM/YY); the checks of §5 in
 * their order with their texts, then the server checks them again and holds the amount at once (D3). The success
 * screen shows for 3 s, then the modal closes and the balance is fetched again.
 */
export function WithdrawModal({
  opened,
  onClose,
  balance,
  demo,
}: {
  opened: boolean;
  onClose: () => void;
  balance: number;
  demo: boolean;
}) {
  const { t } = useTranslation('platform');
  const create = useCreateWithdrawal();
  const [form, setForm] = useState<WithdrawForm>(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  const close = () => {
    setForm(EMPTY);
    setProblem(null);
    setDone(false);
    create.reset();
    onClose();
  };

  useEffect(() => {
    if (!done) return;
    const id = setTimeout(close, 3000);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [done]);

  const submit = async () => {
    const found = withdrawProblem(form, balance, monthNow());
    if (found) {
      setProblem(problemText(found, t));
      return;
    }
    if (demo) {
      setProblem(t('withdraw.demo'));
      return;
    }
    setProblem(null);
    try {
      await create.mutateAsync({
        body: {
          amount: Number(form.amount),
          card_number: form.cardNumber.replace(/\s/g, ''),
          card_holder: form.cardHolder.trim(),
          card_expiry: form.cardExpiry,
        },
        // One key per submit (D3): a retried request cannot hold the amount twice.
        idempotencyKey: newIdempotencyKey(),
      });
      setDone(true);
    } catch (error) {
      setProblem(
        error instanceof ApiError
          ? // An unverified address (issue 22) is said in the client's language, ru/en/kk.
            emailFlowErrorText(error, error.detail || t('withdraw.failed'))
          : error instanceof TypeError
            ? t('withdraw.network')
            : t('withdraw.failed'),
      );
    }
  };

  return (
    <Modal opened={opened} onClose={close} title={t('withdraw.title')} centered>
      {done ? (
        <Stack align="center" gap="xs" data-testid="withdraw-success">
          <ThemeIcon color="teal" size={48} radius="xl">
            <IconCircleCheck size={32} />
          </ThemeIcon>
          <Title order={4}>{t('withdraw.successTitle')}</Title>
          <Text ta="center">{t('withdraw.successText')}</Text>
          <Text ta="center" size="sm" c="dimmed">
            {t('withdraw.successNote')}
          </Text>
        </Stack>
      ) : (
        <form
          data-testid="withdraw-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Stack>
            <Text size="sm">{t('withdraw.available', { amount: usd(balance) })}</Text>
            <AmountField
              label={t('withdraw.amount')}
              required
              leftSection="$"
              value={form.amount}
              onValue={(next) => setForm((f) => ({ ...f, amount: next }))}
              data-testid="withdraw-amount"
            />
            <TextInput
              label={t('withdraw.cardNumber')}
              required
              inputMode="numeric"
              autoComplete="cc-number"
              placeholder="0000 0000 0000 0000"
              maxLength={19}
              value={form.cardNumber}
              onChange={(e) => {
                const cardNumber = shapeCardNumber(e.currentTarget.value);
                setForm((f) => ({ ...f, cardNumber }));
              }}
              data-testid="withdraw-card"
            />
            <TextInput
              label={t('withdraw.cardHolder')}
              required
              autoComplete="cc-name"
              placeholder="IVAN IVANOV"
              value={form.cardHolder}
              onChange={(e) => {
                const cardHolder = shapeCardHolder(e.currentTarget.value);
                setForm((f) => ({ ...f, cardHolder }));
              }}
              data-testid="withdraw-holder"
            />
            <TextInput
              label={t('withdraw.cardExpiry')}
              required
              inputMode="numeric"
              autoComplete="cc-exp"
              placeholder="MM/YY"
              maxLength={5}
              value={form.cardExpiry}
              onChange={(e) => {
                const cardExpiry = shapeCardExpiry(e.currentTarget.value);
                setForm((f) => ({ ...f, cardExpiry }));
              }}
              data-testid="withdraw-expiry"
            />
            <Text size="xs" c="dimmed">
              {t('withdraw.minimum')} · {t('withdraw.workingDays')}
            </Text>
            {problem && (
              <Alert color="red" p="xs" data-testid="withdraw-problem">
                {problem}
              </Alert>
            )}
            <Button type="submit" loading={create.isPending} data-testid="withdraw-submit">
              {t('withdraw.submit')}
            </Button>
            {demo ? null : <MyWithdrawals />}
          </Stack>
        </form>
      )}
    </Modal>
  );
}
