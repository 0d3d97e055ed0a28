import { RISK_MIN_ACCOUNTS } from '@brokerage/shared';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/index.js';

/**
 * The true risk warning (issue 14, item 4; decisions.md D6, ESMA's format): over the 12 months before `now`, the
 * share of client trading accounts (status not 'demo') with at least one settled trade — won, lost or tie, settled in
 * the window; voided trades do not count — whose net trading result is negative. The net result is read from the
 * ledger, the money that actually moved: the trade's stake entry (trade:<id>:stake, negative) plus its settlement
 * entry (trade:<id>:settle: the payout of a won trade, the refund of a tie; none for a lost one), summed over the
 * account's settled trades of the window. Below RISK_MIN_ACCOUNTS accounts the percentage is null (too few to say).
 */
export interface RiskFigure {
  losing_accounts_percent: number | null;
  /** The UTC date the figure was computed for (YYYY-MM-DD). */
  losing_accounts_as_of: string;
  accounts_traded: number;
}

export async function computeRiskFigure(db: Db, now: Date): Promise<RiskFigure> {
  const since = new Date(now);
  since.setUTCFullYear(since.getUTCFullYear() - 1);
  const { rows } = await sql<{ traded: string | number; losing: string | number }>`
    with nets as (
      select t.account_id, sum(e.amount_cents) as net
      from trades t
      join trading_accounts a on a.id = t.account_id
      join ledger_entries e
        on e.account_id = t.account_id
       and e.reference in ('trade:' || t.id::text || ':stake', 'trade:' || t.id::text || ':settle')
      where a.status <> 'demo'
        and t.status in ('won', 'lost', 'tie')
        and t.settled_at > ${since.toISOString()}::timestamptz
        and t.settled_at <= ${now.toISOString()}::timestamptz
      group by t.account_id
    )
    select count(*) as traded, count(*) filter (where net < 0) as losing from nets`.execute(db);
  const traded = Number(rows[0]?.traded ?? 0);
  const losing = Number(rows[0]?.losing ?? 0);
  return {
    losing_accounts_percent: traded < RISK_MIN_ACCOUNTS ? null : Math.round((losing * 100) / traded),
    losing_accounts_as_of: now.toISOString().slice(0, 10),
    accounts_traded: traded,
  };
}

/**
 * The daily job, on demand: the figure is computed at most once per UTC day (the first request of the day computes
 * it; concurrent requests share that computation) and kept until the date changes. Each server process keeps its own
 * copy; they agree because they compute the same query for the same day.
 */
export class RiskFigureCache {
  private cached: { day: string; figure: Promise<RiskFigure> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  get(): Promise<RiskFigure> {
    const now = this.now();
    const day = now.toISOString().slice(0, 10);
    if (this.cached?.day !== day) {
      const figure = computeRiskFigure(this.db, now);
      this.cached = { day, figure };
      // A failed computation is not kept: the next request tries again.
      figure.catch(() => {
        if (this.cached?.figure === figure) this.cached = undefined;
      });
    }
    return this.cached.figure;
  }
}
