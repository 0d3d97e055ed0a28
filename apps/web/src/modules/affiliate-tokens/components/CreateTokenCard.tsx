import type { AffiliateToken } from '@brokerage/shared';
import { Button, Group, Paper, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconKey } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useCreateAffiliateToken } from '../api/affiliateTokens';

/** §2.11 'Create new token': the partner's name and 'Create token', disabled while the name is empty. */
export function CreateTokenCard({ onCreated }: { onCreated: (token: AffiliateToken) => void }) {
  const { t } = useTranslation('affiliateTokens');
  const [name, setName] = useState('');
  const create = useCreateAffiliateToken();
  const trimmed = name.trim();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || create.isPending) return;
    create.mutate(trimmed, {
      onSuccess: (token) => {
        setName('');
        notifications.show({ color: 'green', message: t('create.success') });
        onCreated(token);
      },
      onError: (error) =>
        notifications.show({
          color: 'red',
          message: t('create.error', { detail: errorText(error, t('create.failed')) }),
        }),
    });
  };

  return (
    <Paper withBorder radius="md" p="md" component="form" onSubmit={submit} data-testid="token-create">
      <Title order={4} mb="sm">
        {t('create.title')}
      </Title>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label={t('create.nameLabel')}
          placeholder={t('create.namePlaceholder')}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          maxLength={200}
          style={{ flex: '1 1 260px' }}
          data-testid="token-name"
        />
        <Button
          type="submit"
          leftSection={<IconKey size={16} />}
          disabled={!trimmed}
          loading={create.isPending}
          data-testid="token-create-submit"
        >
          {t('create.submit')}
        </Button>
      </Group>
    </Paper>
  );
}
