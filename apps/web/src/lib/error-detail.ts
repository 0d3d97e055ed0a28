/** back-office.md §8: a string as is; an array joined with '. ' using each item's msg or message; else JSON. */
export function readDetail(detail: unknown): string {
  if (detail === undefined || detail === null) return '';
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item: unknown) => {
        if (typeof item === 'string') return item;
        if (item && typeof item === 'object') {
          const record = item as Record<string, unknown>;
          const text = record.msg ?? record.message;
          if (typeof text === 'string') return text;
        }
        return JSON.stringify(item);
      })
      .join('. ');
  }
  return JSON.stringify(detail);
}

/** One part of a server validation detail: 'field: message', the field maybe a path ('items.0.name', 'body.x'). */
const FIELD_PART =
  /^(?:(?:body|query|params)\.)?((?:[A-Za-z_][A-Za-z0-9_]*|\d+)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|\d+))*): (.*)$/s;

/**
 * Issue 15 defect 7: the server's validation details name fields by their API keys ('text: Не более 5000 символов',
 * parts joined with '. '), which partners read. A screen shows the field in words instead: each part whose field (the
 * last name of its path) has a label (`label(key)`, from the translation files' `fields`) reads 'Текст комментария: …'.
 * A part with no label, or no field, is left as it is.
 */
export function nameFields(detail: string, label: (key: string) => string | null): string {
  if (!detail.includes(': ')) return detail;
  return detail
    .split('. ')
    .map((part) => {
      const match = FIELD_PART.exec(part);
      if (!match) return part;
      const key = match[1]!
        .split('.')
        .filter((segment) => !/^\d+$/.test(segment))
        .pop();
      const words = key ? label(key) : null;
      return words ? `${words}: ${match[2]}` : part;
    })
    .join('. ');
}
