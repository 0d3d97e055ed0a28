import { List, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyableCode } from '../../ui/CopyableCode';

export type LeadField =
  | 'name'
  | 'email'
  | 'phone'
  | 'campaign_name'
  | 'ad_name'
  | 'utm_source'
  | 'utm_campaign'
  | 'utm_medium'
  | 'keyword'
  | 'region'
  | 'device';

/** This deployment's external endpoint for a provider, with the token left for the partner to fill in. */
export function externalUrl(path: 'lead-ads' | 'search-ads', token: string): string {
  return `${window.location.origin}/api/external/${path}?token=${token}`;
}

/** The curl command that posts the example lead to the endpoint. */
export function curlCommand(url: string, example: object): string {
  return [
    `curl -X POST '${url}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify(example)}'`,
  ].join('\n');
}

/**
 * A lead provider's setup page (§2.11 lead-ads and search-ads tabs): the steps, this server's real URL, the supported
 * fields, an example JSON and a copyable curl command; `extra` adds a provider's own section (the search-ads goals).
 */
export function ProviderGuide({
  path,
  title,
  intro,
  steps,
  fields,
  example,
  extra,
}: {
  path: 'lead-ads' | 'search-ads';
  title: string;
  intro: string;
  steps: string[];
  fields: LeadField[];
  example: object;
  extra?: ReactNode;
}) {
  const { t } = useTranslation('affiliates');
  const url = externalUrl(path, t('integration.tokenPlaceholder'));
  const copy = { copyLabel: t('integration.copy'), copiedLabel: t('integration.copied') };
  return (
    <Stack data-testid={`${path}-guide`}>
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Stack>
          <div>
            <Title order={4}>{title}</Title>
            <Text size="sm" c="dimmed">
              {intro}
            </Text>
          </div>
          <Title order={5}>{t('integration.steps')}</Title>
          <List type="ordered" spacing="xs" size="sm">
            {steps.map((step) => (
              <List.Item key={step}>{step}</List.Item>
            ))}
          </List>
          <Title order={5}>{t('integration.url')}</Title>
          <CopyableCode value={url} {...copy} testId={`${path}-url`} />
          <Text size="xs" c="dimmed">
            {t('integration.response')}
          </Text>
        </Stack>
      </Paper>
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Title order={5} mb="sm">
          {t('integration.fields')}
        </Title>
        <Table.ScrollContainer minWidth={360}>
          <Table verticalSpacing={4} fz="sm" data-testid={`${path}-fields`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('integration.fieldColumns.field')}</Table.Th>
                <Table.Th>{t('integration.fieldColumns.meaning')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {fields.map((field) => (
                <Table.Tr key={field}>
                  <Table.Td>
                    <Text ff="monospace" size="sm">
                      {field}
                    </Text>
                  </Table.Td>
                  <Table.Td>{t(`integration.fieldMeaning.${field}`)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {extra}
      <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
        <Stack>
          <Title order={5}>{t('integration.example')}</Title>
          <CopyableCode value={JSON.stringify(example, null, 2)} block {...copy} testId={`${path}-example`} />
          <Title order={5}>{t('integration.curl')}</Title>
          <CopyableCode value={curlCommand(url, example)} block {...copy} testId={`${path}-curl`} />
        </Stack>
      </Paper>
    </Stack>
  );
}
