import { POSTBACK_EVENTS } from '@brokerage/shared';
import { Badge, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ProviderGuide } from './ProviderGuide';

const EXAMPLE = {
  name: 'Daniyar Seitkali',
  phone: '87011234567',
  email: 'daniyar@example.com',
  keyword: 'инвестиции онлайн',
  region: 'Almaty',
  device: 'mobile',
  utm_source: 'google',
  utm_medium: 'cpc',
};

/** §2.11's goals in its order; CONTACT is listed but never sent (no telephony, docs/decisions.md). */
const GOALS = ['LEAD', 'CONTACT', 'REGISTRATION', 'PURCHASE', 'ADD_TO_CART', 'STATUS'] as const;

function Goals() {
  const { t } = useTranslation('affiliates');
  const sent = (goal: (typeof GOALS)[number]) => (POSTBACK_EVENTS as readonly string[]).includes(goal);
  return (
    <Paper withBorder radius="md" p={{ base: 'sm', sm: 'md' }}>
      <Stack>
        <Title order={5}>{t('integration.searchAds.goals')}</Title>
        <Table.ScrollContainer minWidth={420}>
          <Table verticalSpacing={4} fz="sm" data-testid="search-ads-goals">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('integration.searchAds.goalColumns.goal')}</Table.Th>
                <Table.Th>{t('integration.searchAds.goalColumns.meaning')}</Table.Th>
                <Table.Th>{t('integration.searchAds.goalColumns.sent')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {GOALS.map((goal) => (
                <Table.Tr key={goal}>
                  <Table.Td>
                    <Text ff="monospace" size="sm">
                      {goal}
                    </Text>
                  </Table.Td>
                  <Table.Td>{t(`integration.searchAds.goalMeaning.${goal}`)}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={sent(goal) ? 'green' : 'gray'} tt="none">
                      {sent(goal) ? t('integration.searchAds.yes') : t('integration.searchAds.noTelephony')}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Title order={5}>{t('integration.searchAds.signature')}</Title>
        <Text size="sm">{t('integration.searchAds.signatureText')}</Text>
      </Stack>
    </Paper>
  );
}

/** §2.11 search-ads provider tab: POST /api/external/search-ads?token=… (D13) and the goals sent back as postbacks. */
export function SearchAdsTab() {
  const { t } = useTranslation('affiliates');
  return (
    <ProviderGuide
      path="search-ads"
      title={t('integration.searchAds.title')}
      intro={t('integration.searchAds.intro')}
      steps={[
        t('integration.searchAds.step1'),
        t('integration.searchAds.step2'),
        t('integration.searchAds.step3'),
        t('integration.searchAds.step4'),
      ]}
      fields={['name', 'phone', 'email', 'keyword', 'region', 'device', 'utm_source', 'utm_medium']}
      example={EXAMPLE}
      extra={<Goals />}
    />
  );
}
