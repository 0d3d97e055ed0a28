// The interface languages and namespaces, without the translations (index.ts and resources.ts both use them).
export const LANGUAGES = ['ru', 'en', 'kk'] as const;
export type Language = (typeof LANGUAGES)[number];
export const CRM_LANGUAGES = ['ru', 'en'] as const satisfies readonly Language[];
export const DEFAULT_LANGUAGE: Language = 'ru';

export const NAMESPACES = [
  'translation',
  'clientBase',
  'notify',
  'leadImport',
  'affiliateTokens',
  'affiliates',
  'site',
  'platform',
] as const;
/** The back office's namespaces (ru/en): loaded with the back office, not with the trading screen (index.ts). */
export const BACK_OFFICE_NAMESPACES = [
  'translation',
  'clientBase',
  'notify',
  'leadImport',
  'affiliateTokens',
  'affiliates',
] as const;
