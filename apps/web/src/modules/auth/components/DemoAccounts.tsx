import { Divider, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { roleLabelKey } from '../../ui/role-label';
import { useDemoAccounts } from '../api/session';

/** §2.3 (changed): the demo logins, only when the server says it runs with its demo data set. */
export function DemoAccounts({ onPick }: { onPick: (email: string, password: string) => void }) {
  const { t } = useTranslation();
  const { data } = useDemoAccounts();
  if (!data?.demo || data.accounts.length === 0) return null;
  return (
    <Stack gap="xs" mt="lg" data-testid="demo-accounts">
      <Divider label={t('login.demoTitle')} labelPosition="center" />
      <Text size="xs" c="dimmed" ta="center">
        {t('login.demoHint')}
      </Text>
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
        {data.accounts.map((account) => (
          <UnstyledButton
            key={account.email}
            onClick={() => onPick(account.email, account.password)}
            p="xs"
            style={{
              borderRadius: 'var(--mantine-radius-sm)',
              border: '1px solid var(--mantine-color-default-border)',
            }}
          >
            <Text size="sm" fw={500}>
              {t(roleLabelKey(account.role))}
            </Text>
            <Text size="xs" c="dimmed" truncate>
              {account.email}
            </Text>
          </UnstyledButton>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
