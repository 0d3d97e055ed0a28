import type { Db } from '../db/index.js';
import { anyCovers } from './ip.js';

/**
 * The staff IP whitelist as the request guard reads it: cached for a moment, because every staff call consults it,
 * and dropped at once when this process changes it. Other processes see a change within `ttlMs`.
 */
export class WhitelistCache {
  private entries: string[] | null = null;
  private loadedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 2000,
  ) {}

  async list(): Promise<string[]> {
    if (this.entries && Date.now() - this.loadedAt < this.ttlMs) return this.entries;
    const rows = await this.db.selectFrom('ip_whitelist').select('ip_address').execute();
    this.entries = rows.map((r) => r.ip_address);
    this.loadedAt = Date.now();
    return this.entries;
  }

  /** An empty list allows every address (back-office.md §2.14). */
  async allows(ip: string): Promise<boolean> {
    const entries = await this.list();
    return entries.length === 0 || anyCovers(entries, ip);
  }

  invalidate(): void {
    this.entries = null;
  }
}
