import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { calendarEventSchema, fundamentalsSchema, type CalendarEvent, type Fundamentals } from '@brokerage/shared';
import { z } from 'zod';
import type { MarketInfoProvider } from './provider.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SNAPSHOT_FILE = path.resolve(here, '../../../content/market-info-snapshot.json');

const snapshotSchema = z.object({
  snapshot_date: z.iso.date(),
  note: z.string().optional(),
  calendar: z.array(calendarEventSchema),
  fundamentals: z.record(z.string(), fundamentalsSchema),
});

/** The default provider: the dated snapshot shipped with the project (D14), read once. */
export class SnapshotProvider implements MarketInfoProvider {
  readonly name = 'snapshot';
  readonly date: string;
  private readonly events: CalendarEvent[];
  private readonly data: Record<string, Fundamentals>;

  constructor(file = SNAPSHOT_FILE) {
    const parsed = snapshotSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    this.date = parsed.snapshot_date;
    this.events = parsed.calendar;
    this.data = parsed.fundamentals;
  }

  calendar(): Promise<CalendarEvent[]> {
    return Promise.resolve(this.events);
  }

  fundamentals(symbol: string): Promise<Fundamentals | null> {
    return Promise.resolve(this.data[symbol] ?? null);
  }

  /** Only the stocks the snapshot holds. */
  fundamentalsSymbols(selector: readonly string[]): readonly string[] {
    return selector.filter((symbol) => symbol in this.data);
  }
}
