import type ru from '../../i18n/ru.json';

export type MenuLabelKey = `menu.${keyof (typeof ru)['menu']}`;

/** CRM_MENU's labelKey as a translation key; test/i18n.test.ts proves each one exists in ru and en. */
export function menuLabelKey(labelKey: string): MenuLabelKey {
  return labelKey as MenuLabelKey;
}
