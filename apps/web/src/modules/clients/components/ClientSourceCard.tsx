import type { ClientDetail } from '@brokerage/shared';
import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * The card's 'Source details' (§3 lead-provider fields, D13): the lead's affiliate and what its provider sent
 * (ad, UTM tags, search keyword, region, device). Only the fields the lead has; nothing at all for a lead without any.
 */
export function ClientSourceCard({ client }: { client: ClientDetail }) {
  const { t } = useTranslation('affiliateTokens');
  const affiliate = client.affiliate_name ?? (client.affiliate_id === null ? null : `#${client.affiliate_id}`);
  const fields: [string, string, string | null][] = [
    ['affiliate', t('sourceDetails.affiliate'), affiliate],
    ['ad-name', t('sourceDetails.adName'), client.ad_name],
    ['utm-source', t('sourceDetails.utmSource'), client.utm_source],
    ['utm-campaign', t('sourceDetails.utmCampaign'), client.utm_campaign],
    ['utm-medium', t('sourceDetails.utmMedium'), client.utm_medium],
    ['keyword', t('sourceDetails.keyword'), client.keyword],
    ['region', t('sourceDetails.region'), client.region],
    ['device', t('sourceDetails.device'), client.device],
  ];
  const present = fields.filter(([, , value]) => value);
  if (present.length === 0) return null;
  return (
    <Paper withBorder radius="md" p="md" data-testid="client-source">
      <Title order={4} mb="sm">
        {t('sourceDetails.title')}
      </Title>
      <SimpleGrid cols={{ base: 1, xs: 2, lg: 1 }} spacing="sm">
        {present.map(([key, label, value]) => (
          <Stack gap={2} key={key}>
            <Text size="xs" c="dimmed">
              {label}
            </Text>
            <Text size="sm" data-testid={`client-source-${key}`} style={{ overflowWrap: 'anywhere' }}>
              {value}
            </Text>
          </Stack>
        ))}
      </SimpleGrid>
    </Paper>
  );
}
