import { Alert, Badge, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck, IconMinus, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { overallVerdict, stepState, type StepState, type Verdict, type VerificationRun } from '../api/verify';

const COLOUR: Record<StepState, string> = { passed: 'teal', failed: 'red', skipped: 'gray' };
const ICON: Record<StepState, typeof IconCheck> = { passed: IconCheck, failed: IconX, skipped: IconMinus };

/** One check: its name from our translations, its state in colour, icon and words, the verifier's explanation. */
function StepRow({ step }: { step: Verdict['steps'][number] }) {
  const { t } = useTranslation('site');
  const state = stepState(step.ok);
  const Icon = ICON[state];
  return (
    <Group
      component="li"
      wrap="nowrap"
      align="flex-start"
      gap="sm"
      data-testid="verify-step"
      data-step={step.id}
      data-state={state}
    >
      <ThemeIcon
        color={COLOUR[state]}
        radius="xl"
        size="md"
        variant={state === 'skipped' ? 'light' : 'filled'}
        aria-hidden="true"
      >
        <Icon size={16} />
      </ThemeIcon>
      <div style={{ minWidth: 0, flex: 1 }}>
        <Group gap="xs" wrap="wrap">
          <Text fw={600}>{t(`verify.steps.${step.id}`, { defaultValue: step.id })}</Text>
          <Badge color={COLOUR[state]} variant="light" size="sm" data-testid="verify-step-state">
            {t(`verify.state.${state}`)}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="verify-step-text">
          {step.text}
        </Text>
      </div>
    </Group>
  );
}

function VerdictCard({ verdict }: { verdict: Verdict }) {
  const { t } = useTranslation('site');
  const state = verdict.ok ? 'passed' : 'failed';
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="verify-trade"
      data-trade-id={verdict.trade_id ?? ''}
      data-ok={verdict.ok}
    >
      <Group justify="space-between" wrap="wrap" mb="xs">
        <Title order={3} size="h4">
          {verdict.trade_id !== null ? t('verify.trade', { id: verdict.trade_id }) : t('verify.tradeUnknown')}
        </Title>
        <Badge color={COLOUR[state]} size="lg">
          {t(`verify.state.${state}`)}
        </Badge>
      </Group>
      <Stack component="ol" gap="sm" p={0} m={0} style={{ listStyle: 'none' }}>
        {verdict.steps.map((step) => (
          <StepRow key={step.id} step={step} />
        ))}
      </Stack>
      {verdict.summary ? (
        <Text size="sm" mt="sm" fw={500} data-testid="verify-summary">
          {verdict.summary}
        </Text>
      ) : null}
    </Paper>
  );
}

/** The verdict on the whole file first (in words, not only colour), then every trade's checks. */
export function VerdictList({ run }: { run: VerificationRun }) {
  const { t } = useTranslation('site');
  const overall = overallVerdict(run.verdicts);
  const passed = run.verdicts.filter((v) => v.ok).length;
  return (
    <Stack gap="md">
      {run.consistencyRefusals.map((r) => (
        <Alert key={r.size} color="orange" data-testid="verify-consistency-refused">
          {t('verify.consistencyRefused', { size: r.size, detail: r.detail || t('common.error') })}
        </Alert>
      ))}
      <Alert
        role="status"
        color={overall === 'passed' ? 'teal' : overall === 'failed' ? 'red' : 'gray'}
        variant={overall === 'empty' ? 'light' : 'filled'}
        icon={overall === 'passed' ? <IconCheck /> : <IconX />}
        title={t(`verify.verdict.${overall}`)}
        data-testid="verify-verdict"
        data-verdict={overall}
      >
        {overall === 'empty' ? null : t('verify.verdict.count', { total: run.verdicts.length, passed })}
      </Alert>
      {run.verdicts.map((verdict, i) => (
        <VerdictCard key={`${verdict.trade_id ?? 'x'}-${i}`} verdict={verdict} />
      ))}
    </Stack>
  );
}
