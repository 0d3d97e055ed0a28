import { HttpError } from '../../platform/http/errors.js';

/** The public price calls take `from` and `to` in this range (issue 20 §6): PostgreSQL refuses some far dates. */
export const PRICE_DATE_MIN = '2000-01-01T00:00:00.000Z';
export const PRICE_DATE_MAX = '2100-01-01T00:00:00.000Z';

/** A query's ISO 8601 instant (already checked by its schema) as a Date; 400 naming the field outside the range. */
export function priceDate(field: 'from' | 'to', value: string): Date {
  const date = new Date(value);
  const ms = date.getTime();
  if (!(ms >= Date.parse(PRICE_DATE_MIN) && ms <= Date.parse(PRICE_DATE_MAX))) {
    throw new HttpError(400, 'date_out_of_range', {
      field,
      min: PRICE_DATE_MIN.slice(0, 10),
      max: PRICE_DATE_MAX.slice(0, 10),
    });
  }
  return date;
}
