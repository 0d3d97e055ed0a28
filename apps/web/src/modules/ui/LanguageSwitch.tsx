import { SegmentedControl } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CRM_LANGUAGES, changeLanguage, isLanguage } from '../../i18n';

export function LanguageSwitch({ size = 'xs' }: { size?: 'xs' | 'sm' }) {
  const { t, i18n } = useTranslation();
  return (
    <SegmentedControl
      size={size}
      aria-label={t('layout.language')}
      data-testid="language-switch"
      value={i18n.language}
      onChange={(value) => isLanguage(value) && changeLanguage(value)}
      data={CRM_LANGUAGES.map((lang) => ({ value: lang, label: lang.toUpperCase() }))}
    />
  );
}
