/**
 * The columns of a lead file (issue 10): matched by their header, case- and space-insensitively, in Russian and
 * English. The required four are the template's (clients_template.csv); campaign and source are optional.
 */
export type LeadField = 'name' | 'email' | 'phone' | 'country' | 'campaign' | 'source';

export const REQUIRED_FIELDS = ['name', 'email', 'phone', 'country'] as const satisfies readonly LeadField[];

/** How a field is named in messages: the template's English header. */
export const FIELD_LABEL: Record<LeadField, string> = {
  name: 'full name',
  email: 'Email',
  phone: 'Phone',
  country: 'Country',
  campaign: 'Campaign',
  source: 'Source',
};

const ALIASES: Record<LeadField, readonly string[]> = {
  name: ['full name', 'name', 'ФИО', 'Имя'],
  email: ['Email', 'E-mail', 'Почта'],
  phone: ['Phone', 'Телефон'],
  country: ['Country', 'Страна'],
  campaign: ['Campaign', 'Кампания'],
  source: ['Source', 'Источник'],
};

/** A header as compared: letter case, spaces (also no-break and zero-width ones, a BOM) and ё/е do not count. */
export function headerKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/\s+/g, '')
    .replace(/\u200b|\u200c|\u200d|\u2060|\ufeff/g, '');
}

const FIELD_BY_KEY = new Map<string, LeadField>(
  (Object.entries(ALIASES) as [LeadField, readonly string[]][]).flatMap(([field, names]) =>
    names.map((n) => [headerKey(n), field] as const),
  ),
);

export interface HeaderMatch {
  /** The column index of each field found (the first column of that name when a name repeats). */
  columns: Partial<Record<LeadField, number>>;
  /** Required fields without a column, in template order. */
  missing: LeadField[];
}

export function matchHeader(cells: readonly string[]): HeaderMatch {
  const columns: Partial<Record<LeadField, number>> = {};
  cells.forEach((cell, index) => {
    const field = FIELD_BY_KEY.get(headerKey(cell));
    if (field && columns[field] === undefined) columns[field] = index;
  });
  return { columns, missing: REQUIRED_FIELDS.filter((f) => columns[f] === undefined) };
}

/**
 * The separator of a CSV file from its header line: the one of comma, semicolon and tab that occurs most often
 * outside quotes (Excel in a Russian locale writes semicolons); a comma when none occurs.
 */
export function detectDelimiter(headerLine: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch] += 1;
  }
  let best: ',' | ';' | '\t' = ',';
  for (const d of [';', '\t'] as const) if (counts[d] > counts[best]) best = d;
  return best;
}
