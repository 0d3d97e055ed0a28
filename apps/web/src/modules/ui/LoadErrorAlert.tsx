import { Alert, Button, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../lib/api';

/** The red box above a list whose query failed: the title, the server's reason when it gave one, and a retry. */
export function LoadErrorAlert({
  title,
  error,
  onRetry,
  testId,
}: {
  title: string;
  error: unknown;
  onRetry: () => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const reason = errorText(error, '');
  return (
    <Alert color="red" mb="md" title={title} data-testid={testId}>
      <Stack gap="xs" align="flex-start">
        {reason ? <Text size="sm">{reason}</Text> : null}
        <Button size="xs" variant="light" color="red" onClick={onRetry}>
          {t('common.retry')}
        </Button>
      </Stack>
    </Alert>
  );
}
