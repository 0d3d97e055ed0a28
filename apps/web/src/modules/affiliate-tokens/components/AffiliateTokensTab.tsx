import type { AffiliateToken } from '@brokerage/shared';
import { Alert, List, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconInfoCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useCurrentUser } from '../../auth/current-user';
import { ConfirmModal } from '../../ui/ConfirmModal';
import { LoadErrorAlert } from '../../ui/LoadErrorAlert';
import { useAffiliateTokens, useDeleteAffiliateToken } from '../api/affiliateTokens';
import { CreateTokenCard } from './CreateTokenCard';
import { ExternalApiDocs } from './ExternalApiDocs';
import { TokenCreatedModal } from './TokenCreatedModal';
import { TokensTable } from './TokensTable';
import { WhitelistModal } from './WhitelistModal';

/**
 * §2.11 'Affiliates' tab: create a token (shown once, D17), the active tokens with their IP whitelists, delete, the
 * whitelist rules and the external API's documentation.
 */
export function AffiliateTokensTab() {
  const { t } = useTranslation('affiliateTokens');
  const timeZone = useCurrentUser().business_timezone;
  const tokens = useAffiliateTokens();
  const remove = useDeleteAffiliateToken();
  const [created, setCreated] = useState<AffiliateToken | null>(null);
  const [editing, setEditing] = useState<AffiliateToken | null>(null);
  const [deleting, setDeleting] = useState<{ token: AffiliateToken; open: boolean } | null>(null);

  const confirmDelete = (token: AffiliateToken) =>
    remove.mutate(token.id, {
      onSuccess: () => notifications.show({ color: 'green', message: t('delete.success') }),
      onError: (error) =>
        notifications.show({
          color: 'red',
          message: t('delete.error', { detail: errorText(error, t('delete.failed')) }),
        }),
      onSettled: () => setDeleting((current) => (current ? { ...current, open: false } : null)),
    });

  return (
    <Stack gap="md" data-testid="affiliate-tokens-tab">
      <CreateTokenCard onCreated={setCreated} />

      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Title order={4} mb="sm">
          {t('table.title')}
        </Title>
        {tokens.isError ? (
          <LoadErrorAlert
            title={t('table.loadError')}
            error={tokens.error}
            onRetry={() => void tokens.refetch()}
            testId="tokens-error"
          />
        ) : (
          <TokensTable
            tokens={tokens.data ?? []}
            loading={tokens.isPending}
            timeZone={timeZone}
            onEditWhitelist={setEditing}
            onDelete={(token) => setDeleting({ token, open: true })}
          />
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('table.timeZone', { zone: timeZone })}
        </Text>
      </Paper>

      <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} title={t('help.title')}>
        <List size="sm" spacing={2}>
          <List.Item>{t('help.any')}</List.Item>
          <List.Item>{t('help.listed')}</List.Item>
          <List.Item>{t('help.formats')}</List.Item>
          <List.Item>{t('help.blocked')}</List.Item>
        </List>
      </Alert>

      <ExternalApiDocs />

      <TokenCreatedModal token={created} onClose={() => setCreated(null)} />
      {editing ? <WhitelistModal key={editing.id} token={editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmModal
        opened={deleting?.open ?? false}
        title={t('delete.title')}
        text={deleting ? `${t('delete.text')} ${t('delete.detail', { name: deleting.token.name })}` : ''}
        confirmLabel={t('delete.submit')}
        loading={remove.isPending}
        onConfirm={() => deleting && confirmDelete(deleting.token)}
        onClose={() => setDeleting((current) => (current ? { ...current, open: false } : null))}
        onExited={() => setDeleting(null)}
      />
    </Stack>
  );
}
