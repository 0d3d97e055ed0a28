import { SegmentedControl } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CRM_LANGUAGES, changeLanguage, isLanguage, type Language } from '../../i18n';

/**
 * The interface language switch. The back office and the sign-in page offer ru and en (D15); the trading screen passes
 * ru/en/kk, so a visitor who chose kk on the public site keeps it there and sees it selected.
 */
export function LanguageSwitch({
  size = 'xs',
  languages = CRM_LANGUAGES,
}: {
  size?: 'xs' | 'sm';
  languages?: readonly Language[];
}) {
  const { t, i18n } = useTranslation();
  return (
    <SegmentedControl
      size={size}
      aria-label={t('layout.language')}
      data-testid="language-switch"
      value={i18n.language}
      onChange={(value) => isLanguage(value) && changeLanguage(value)}
      data={languages.map((lang) => ({ value: lang, label: lang.toUpperCase() }))}
    />
  );
}
