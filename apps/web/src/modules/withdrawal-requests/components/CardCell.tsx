import type { StaffWithdrawRequest } from '@brokerage/shared';
import { Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconEye, IconEyeOff } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { revealCard } from '../api/withdrawal-requests';

/** '4111111111111111' → '4111 1111 1111 1111', the way a card is read aloud. */
function groupDigits(number: string): string {
  return number.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/**
 * §2.9 card column (D7): the holder, the masked number and the expiry. 'Показать' asks the server for the full number
 * (an audited reveal, roles that process requests only); it is kept only while shown and forgotten on 'Скрыть'.
 */
export function CardCell({ request, mayReveal }: { request: StaffWithdrawRequest; mayReveal: boolean }) {
  const { t } = useTranslation('clientBase');
  const [full, setFull] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const reveal = async () => {
    setLoading(true);
    try {
      setFull((await revealCard(request.id)).card_number);
    } catch (error) {
      notifications.show({ color: 'red', message: errorText(error, t('withdrawals.revealError')) });
    } finally {
      setLoading(false);
    }
  };

  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {request.card_holder}
      </Text>
      <Group gap={6} wrap="nowrap">
        <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }} data-testid="withdrawal-card-number">
          {full ? groupDigits(full) : request.card_number}
        </Text>
        {mayReveal ? (
          <Button
            size="compact-xs"
            variant="subtle"
            loading={loading}
            leftSection={full ? <IconEyeOff size={12} /> : <IconEye size={12} />}
            onClick={(event) => {
              event.stopPropagation();
              if (full) setFull(null);
              else void reveal();
            }}
            data-testid="withdrawal-reveal"
          >
            {full ? t('withdrawals.hide') : t('withdrawals.reveal')}
          </Button>
        ) : null}
      </Group>
      <Text size="xs" c="dimmed">
        {request.card_expiry}
      </Text>
    </Stack>
  );
}
