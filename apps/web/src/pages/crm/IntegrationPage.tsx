import { Stack, Tabs, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { AffiliateTokensTab } from '../../modules/affiliate-tokens/components/AffiliateTokensTab';
import { ApiIntegrationTab } from '../../modules/integration/components/ApiIntegrationTab';
import { LeadAdsTab } from '../../modules/integration/components/LeadAdsTab';
import { SearchAdsTab } from '../../modules/integration/components/SearchAdsTab';
import { FileUploadTab } from '../../modules/lead-import/components/FileUploadTab';

/** §2.11 Integration and import: one tab per lead source; each tab is its feature's own component. */
export default function IntegrationPage() {
  const { t } = useTranslation('leadImport');
  return (
    <Stack>
      <Title order={2}>{t('page.title')}</Title>
      <Tabs defaultValue="upload" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="upload">{t('page.tabs.upload')}</Tabs.Tab>
          <Tabs.Tab value="api">{t('page.tabs.api')}</Tabs.Tab>
          <Tabs.Tab value="affiliates">{t('page.tabs.affiliates')}</Tabs.Tab>
          <Tabs.Tab value="lead-ads">{t('page.tabs.leadAds')}</Tabs.Tab>
          <Tabs.Tab value="search-ads">{t('page.tabs.searchAds')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="upload" pt="md">
          <FileUploadTab />
        </Tabs.Panel>
        <Tabs.Panel value="api" pt="md">
          <ApiIntegrationTab />
        </Tabs.Panel>
        <Tabs.Panel value="affiliates" pt="md">
          <AffiliateTokensTab />
        </Tabs.Panel>
        <Tabs.Panel value="lead-ads" pt="md">
          <LeadAdsTab />
        </Tabs.Panel>
        <Tabs.Panel value="search-ads" pt="md">
          <SearchAdsTab />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
