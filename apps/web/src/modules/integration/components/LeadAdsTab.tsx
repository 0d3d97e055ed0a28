import { useTranslation } from 'react-i18next';
import { ProviderGuide } from './ProviderGuide';

const EXAMPLE = {
  name: 'Aigerim Nurlanovna',
  email: 'aigerim@example.com',
  phone: '+77001234567',
  campaign_name: 'Spring KZ',
  ad_name: 'Video 15s',
  utm_source: 'facebook',
  utm_campaign: 'spring_kz',
};

/** §2.11 lead-ads provider tab: POST /api/external/lead-ads?token=… (D13). */
export function LeadAdsTab() {
  const { t } = useTranslation('affiliates');
  return (
    <ProviderGuide
      path="lead-ads"
      title={t('integration.leadAds.title')}
      intro={t('integration.leadAds.intro')}
      steps={[
        t('integration.leadAds.step1'),
        t('integration.leadAds.step2'),
        t('integration.leadAds.step3'),
        t('integration.leadAds.step4'),
      ]}
      fields={['name', 'email', 'phone', 'campaign_name', 'ad_name', 'utm_source', 'utm_campaign']}
      example={EXAMPLE}
    />
  );
}
