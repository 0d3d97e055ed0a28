import type { TestConnectionResponse } from '@brokerage/shared';
import {
  Alert,
  Button,
  Grid,
  List,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconCircleCheck, IconPlugConnected, IconPlugConnectedX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { useTestConnection } from '../api/integration';

const FEATURES = ['rest', 'bearer', 'webhooks', 'pagination'] as const;

function ResultAlert({ result }: { result: TestConnectionResponse }) {
  const { t } = useTranslation('affiliates');
  const title = result.ok
    ? t('integration.api.resultOk', { status: result.status, time: result.time_ms })
    : result.status !== null
      ? t('integration.api.resultHttp', { status: result.status, time: result.time_ms })
      : t('integration.api.resultNoAnswer', { time: result.time_ms });
  return (
    <Alert
      color={result.ok ? 'green' : 'red'}
      variant="light"
      icon={result.ok ? <IconPlugConnected size={18} /> : <IconPlugConnectedX size={18} />}
      title={title}
      data-testid="api-test-result"
      data-ok={result.ok}
    >
      {/* The title says it all for an answer; without one, the server's reason (timeout, refused, TLS). */}
      {result.status === null ? result.detail : null}
    </Alert>
  );
}

/**
 * §2.11 'API integration': API key, API URL and Webhook Token live only on this page; 'Test connection' asks the
 * server to GET the URL with the Bearer key (5 s, https and public addresses only) and shows the status and time.
 */
export function ApiIntegrationTab() {
  const { t } = useTranslation('affiliates');
  const [apiKey, setApiKey] = useState('');
  const [apiUrl, setApiUrl] = useState('');
  const [webhookToken, setWebhookToken] = useState('');
  const [missing, setMissing] = useState(false);
  const test = useTestConnection();

  const run = () => {
    if (!apiKey.trim() || !apiUrl.trim()) {
      setMissing(true);
      return;
    }
    setMissing(false);
    test.mutate({ api_key: apiKey.trim(), api_url: apiUrl.trim() });
  };

  return (
    <Grid gutter="md">
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              run();
            }}
            noValidate
            data-testid="api-test-form"
          >
            <Stack>
              <Title order={4}>{t('integration.api.title')}</Title>
              <Text size="sm" c="dimmed">
                {t('integration.api.intro')}
              </Text>
              <PasswordInput
                label={t('integration.api.apiKey')}
                value={apiKey}
                onChange={(event) => setApiKey(event.currentTarget.value)}
                autoComplete="off"
                required
                data-testid="api-key"
              />
              <TextInput
                label={t('integration.api.apiUrl')}
                type="url"
                placeholder="https://partner.example/api/v1/leads"
                value={apiUrl}
                onChange={(event) => setApiUrl(event.currentTarget.value)}
                required
                data-testid="api-url"
              />
              <PasswordInput
                label={t('integration.api.webhookToken')}
                description={t('integration.api.webhookTokenHint')}
                value={webhookToken}
                onChange={(event) => setWebhookToken(event.currentTarget.value)}
                autoComplete="off"
                data-testid="api-webhook-token"
              />
              {missing ? (
                <Alert color="red" variant="light" role="alert" data-testid="api-test-missing">
                  {t('integration.api.required')}
                </Alert>
              ) : null}
              {test.isError ? (
                <Alert color="red" variant="light" role="alert" data-testid="api-test-error">
                  {errorText(test.error, t('integration.api.error'))}
                </Alert>
              ) : null}
              {test.data && !test.isPending && !test.isError ? <ResultAlert result={test.data} /> : null}
              <div>
                <Button
                  type="submit"
                  loading={test.isPending}
                  leftSection={<IconPlugConnected size={16} />}
                  data-testid="api-test"
                >
                  {t('integration.api.test')}
                </Button>
              </div>
            </Stack>
          </form>
        </Paper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
          <Title order={5} mb="sm">
            {t('integration.api.supported')}
          </Title>
          <List
            spacing="xs"
            size="sm"
            icon={
              <ThemeIcon color="green" size={20} radius="xl" variant="light">
                <IconCircleCheck size={14} />
              </ThemeIcon>
            }
            data-testid="api-supported"
          >
            {FEATURES.map((feature) => (
              <List.Item key={feature}>{t(`integration.api.features.${feature}`)}</List.Item>
            ))}
          </List>
        </Paper>
      </Grid.Col>
    </Grid>
  );
}
