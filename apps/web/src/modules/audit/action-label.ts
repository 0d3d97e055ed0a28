import type { TFunction } from 'i18next';
import type ru from '../../i18n/ru.json';

type ActionGroups = (typeof ru)['audit']['actions'];
type ActionKey = {
  [G in keyof ActionGroups]: `audit.actions.${G & string}.${keyof ActionGroups[G] & string}`;
}[keyof ActionGroups];

/**
 * `audit.actions.<action>`. An action added to the shared list before its translation (test/i18n.test.ts flags it),
 * or one this build does not know, is shown as the server wrote it.
 */
export function auditActionLabel(action: string, t: TFunction): string {
  return t(`audit.actions.${action}` as ActionKey, { defaultValue: action });
}
