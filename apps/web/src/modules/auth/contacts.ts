import type { SiteContent } from '@brokerage/shared';

/** The site content's contacts as one line ('mail@…, +7 …'), '' when the operator filled none (issue 22 §6). */
export function contactsLine(content: Pick<SiteContent, 'contacts'> | undefined | null): string {
  const contacts = content?.contacts;
  return [contacts?.email?.trim(), contacts?.phone?.trim()].filter((part): part is string => !!part).join(', ');
}
