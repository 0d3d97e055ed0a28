import { Anchor, Badge, Code, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const POST_EXAMPLE = `{
  "name": "Aigerim Nurlanovna",
  "email": "aigerim@example.com",
  "phone": "+7 700 123 45 67",
  "country": "Kazakhstan",
  "campaign_name": "Spring promo"
}`;

const POST_ANSWER = `{
  "status": "created",
  "client_id": 1042,
  "client": {
    "client_id": 1042, "name": "Aigerim Nurlanovna", "email": "aigerim@example.com",
    "phone": "+77001234567", "status": "new", "ftd": false, "created_at": "2026-11-25T09:30:00.000Z"
  }
}`;

const ENDPOINTS = [
  { method: 'POST', path: '/api/external/clients', key: 'postClients' },
  { method: 'GET', path: '/api/external/clients?limit=100&offset=0', key: 'getClients' },
  { method: 'POST', path: '/api/external/lead-ads', key: 'leadAds' },
  { method: 'POST', path: '/api/external/search-ads', key: 'searchAds' },
] as const;

/** §2.11 / §7: the external endpoints as a partner needs them, with this deployment's own address. */
export function ExternalApiDocs() {
  const { t } = useTranslation('affiliateTokens');
  const origin = window.location.origin;
  const curl = `curl -X POST '${origin}/api/external/clients' \\
  -H 'Authorization: Bearer YOUR_TOKEN' \\
  -H 'Content-Type: application/json' \\
  -H 'Idempotency-Key: lead-1042' \\
  -d '{"name": "Aigerim Nurlanovna", "phone": "+77001234567"}'`;

  return (
    <Paper withBorder radius="md" p="md" data-testid="external-api-docs">
      <Stack gap="sm">
        <Title order={4}>{t('docs.title')}</Title>
        <Text size="sm">{t('docs.auth')}</Text>
        <Stack gap="xs">
          {ENDPOINTS.map((endpoint) => (
            <Stack key={endpoint.key} gap={2}>
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Badge variant="light" color={endpoint.method === 'GET' ? 'blue' : 'teal'} style={{ flexShrink: 0 }}>
                  {endpoint.method}
                </Badge>
                <Code style={{ wordBreak: 'break-all' }}>{`${origin}${endpoint.path}`}</Code>
              </Group>
              <Text size="sm" c="dimmed">
                {t(`docs.endpoints.${endpoint.key}`)}
              </Text>
            </Stack>
          ))}
        </Stack>
        <Text size="sm">{t('docs.answer')}</Text>
        <Text size="sm" fw={500}>
          {t('docs.exampleRequest')}
        </Text>
        <Code block>{POST_EXAMPLE}</Code>
        <Text size="sm" fw={500}>
          {t('docs.exampleAnswer')}
        </Text>
        <Code block>{POST_ANSWER}</Code>
        <Text size="sm" fw={500}>
          {t('docs.errorsTitle')}
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>{t('docs.errors.401')}</List.Item>
          <List.Item>{t('docs.errors.400')}</List.Item>
          <List.Item>{t('docs.errors.429')}</List.Item>
          <List.Item>{t('docs.errors.404')}</List.Item>
        </List>
        <Text size="sm" fw={500}>
          {t('docs.curlTitle')}
        </Text>
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {curl}
        </Code>
        <Text size="sm">
          {t('docs.openApi')}{' '}
          <Anchor href="/api/docs" target="_blank" rel="noopener" data-testid="external-api-openapi">
            {`${origin}/api/docs`}
          </Anchor>
        </Text>
      </Stack>
    </Paper>
  );
}
