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
