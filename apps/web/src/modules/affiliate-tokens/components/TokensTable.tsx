import type { AffiliateToken } from '@brokerage/shared';
import { ActionIcon, Badge, Button, Group, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { useCopyFeedback } from '../hooks/useCopyFeedback';

/** The masked token and its copy button, which copies the masked form and says so (D17); a check mark for 2 s. */
function MaskedToken({ token }: { token: AffiliateToken }) {
  const { t } = useTranslation('affiliateTokens');
  const { copied, copy } = useCopyFeedback();
  return (
    <Group gap={4} wrap="nowrap">
      <Text ff="monospace" size="sm" data-testid="token-masked">
        {token.token}
      </Text>
      <Tooltip label={copied ? t('copy.maskedCopied') : t('copy.masked')} withArrow multiline w={260}>
        <ActionIcon
          variant="subtle"
          color={copied ? 'teal' : 'gray'}
          aria-label={copied ? t('copy.maskedCopied') : t('copy.masked')}
          onClick={() => void copy(token.token)}
          data-testid="token-masked-copy"
          data-copied={copied || undefined}
        >
          {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

/** §2.11 'Active tokens': Name, Token, IP Whitelist, Created, Last used, Actions. */
export function TokensTable({
  tokens,
  loading,
  timeZone,
  onEditWhitelist,
  onDelete,
}: {
  tokens: AffiliateToken[];
  loading: boolean;
  timeZone: string;
  onEditWhitelist: (token: AffiliateToken) => void;
  onDelete: (token: AffiliateToken) => void;
}) {
  const { t } = useTranslation('affiliateTokens');
  const columns: DataColumn<AffiliateToken>[] = [
    {
      key: 'name',
      header: t('table.name'),
      cell: (token) => (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" fw={500}>
            {token.name}
          </Text>
          {token.is_active ? null : (
            <Badge size="xs" color="gray" variant="light">
              {t('table.inactive')}
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'token', header: t('table.token'), cell: (token) => <MaskedToken token={token} /> },
    {
      key: 'whitelist',
      header: t('table.whitelist'),
      cell: (token) => (
        <Group gap="xs" wrap="nowrap" data-testid="token-whitelist">
          {token.ip_whitelist.length > 0 ? (
            <Tooltip label={token.ip_whitelist.join(', ')} multiline maw={320} withArrow>
              <Badge variant="light" color="orange">
                {t('table.ipCount', { count: token.ip_whitelist.length })}
              </Badge>
            </Tooltip>
          ) : (
            <Text size="sm" c="dimmed">
              {t('table.anyIp')}
            </Text>
          )}
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => onEditWhitelist(token)}
            data-testid="token-whitelist-edit"
          >
            {token.ip_whitelist.length > 0 ? t('table.edit') : t('table.configure')}
          </Button>
        </Group>
      ),
    },
    {
      key: 'created',
      header: t('table.created'),
      cell: (token) => <Text size="sm">{formatDateTime(token.created_at, timeZone)}</Text>,
    },
    {
      key: 'lastUsed',
      header: t('table.lastUsed'),
      cell: (token) => (
        <Text size="sm" c={token.last_used ? undefined : 'dimmed'}>
          {token.last_used ? formatDateTime(token.last_used, timeZone) : t('table.notUsed')}
        </Text>
      ),
    },
    {
      key: 'actions',
      header: t('table.actions'),
      align: 'right',
      card: 'actions',
      cell: (token) => (
        <Group justify="flex-end">
          <Button
            size="compact-sm"
            variant="subtle"
            color="red"
            leftSection={<IconTrash size={14} />}
            onClick={() => onDelete(token)}
            data-testid="token-delete"
          >
            {t('table.delete')}
          </Button>
        </Group>
      ),
    },
  ];
  return (
    <DataTable
      items={tokens}
      columns={columns}
      rowKey={(token) => token.id}
      rowProps={(token) => ({ 'data-testid': 'token-row', 'data-token-id': token.id })}
      minWidth={760}
      testId="tokens-table"
      loading={loading}
      loadingText={t('table.loading')}
      empty={!loading && tokens.length === 0}
      emptyText={t('table.empty')}
      emptyTestId="tokens-empty"
    />
  );
}
