import type { AffiliateToken } from '@brokerage/shared';
import { Alert, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { isIpOrCidr } from '../../../lib/ip';
import { useSetTokenWhitelist } from '../api/affiliateTokens';

function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * §2.11 whitelist editing: one IP or CIDR per line, Save / Cancel. Lines the browser can tell are not addresses are
 * named before sending; the server is the authority and its refusal is shown here too. Mounted per edit (keyed by
 * the token), so it starts from the token's list each time.
 */
export function WhitelistModal({ token, onClose }: { token: AffiliateToken; onClose: () => void }) {
  const { t } = useTranslation('affiliateTokens');
  const [text, setText] = useState(token.ip_whitelist.join('\n'));
  const [serverError, setServerError] = useState<string | null>(null);
  const save = useSetTokenWhitelist();
  const invalid = linesOf(text).filter((line) => !isIpOrCidr(line));

  const submit = () => {
    if (invalid.length > 0) return;
    setServerError(null);
    save.mutate(
      { id: token.id, entries: linesOf(text) },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('whitelist.success') });
          onClose();
        },
        onError: (error) => setServerError(t('whitelist.error', { detail: errorText(error, t('whitelist.failed')) })),
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title={t('whitelist.title', { name: token.name })} centered>
      <Stack data-testid="whitelist-modal">
        <Textarea
          label={t('whitelist.label')}
          description={t('whitelist.emptyMeansAny')}
          placeholder={t('whitelist.placeholder')}
          autosize
          minRows={4}
          maxRows={12}
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            setServerError(null);
          }}
          error={invalid.length > 0 ? t('whitelist.invalid', { entries: invalid.join(', ') }) : undefined}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          data-testid="whitelist-text"
          data-autofocus
        />
        {serverError ? (
          <Alert color="red" data-testid="whitelist-error">
            <Text size="sm">{serverError}</Text>
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('whitelist.cancel')}
          </Button>
          <Button onClick={submit} loading={save.isPending} disabled={invalid.length > 0} data-testid="whitelist-save">
            {t('whitelist.save')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
