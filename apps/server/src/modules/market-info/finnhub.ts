import type { CalendarEvent, Fundamentals } from '@brokerage/shared';
import { ProviderError, type MarketInfoProvider } from './provider.js';

export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal?: AbortSignal },
) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;

export interface FinnhubOptions {
  apiKey: string;
  baseUrl: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

type Json = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const fixed = (v: unknown): string | null => {
  const n = num(v);
  return n === null ? null : String(Math.round(n * 100) / 100);
};
const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const EARNINGS_HOURS: Record<string, string> = { bmo: '13:00', amc: '20:00' };
const IMPACTS = new Set(['high', 'medium', 'low']);

/**
 * Finnhub (https://finnhub.io/docs/api): earnings and economic calendars, company profile and basic financials.
 * The key travels in the X-Finnhub-Token header, never in a URL, so no URL that could reach a log carries it.
 */
export class FinnhubProvider implements MarketInfoProvider {
  readonly name = 'finnhub';
  private readonly fetchFn: FetchLike;

  constructor(private readonly options: FinnhubOptions) {
    this.fetchFn = options.fetch ?? (globalThis.fetch as unknown as FetchLike);
  }

  private async get(pathAndQuery: string): Promise<Json> {
    let res: Awaited<ReturnType<FetchLike>>;
    try {
      res = await this.fetchFn(`${this.options.baseUrl.replace(/\/$/, '')}${pathAndQuery}`, {
        headers: { 'X-Finnhub-Token': this.options.apiKey, Accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 8000),
      });
    } catch (err) {
      throw new ProviderError(
        `finnhub ${pathAndQuery.split('?')[0]}: ${err instanceof Error ? err.name : 'network error'}`,
      );
    }
    if (!res.ok) throw new ProviderError(`finnhub ${pathAndQuery.split('?')[0]}: HTTP ${res.status}`);
    const body = await res.json().catch(() => null);
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new ProviderError(`finnhub ${pathAndQuery.split('?')[0]}: unexpected body`);
    return body as Json;
  }

  async calendar(now: Date): Promise<CalendarEvent[]> {
    const from = isoDate(new Date(now.getTime() - 2 * 86_400_000));
    const to = isoDate(new Date(now.getTime() + 14 * 86_400_000));
    const earnings = await this.get(`/calendar/earnings?from=${from}&to=${to}`);
    // The economic calendar is a paid endpoint: without it the earnings still answer.
    const economic = await this.get(`/calendar/economic?from=${from}&to=${to}`).catch(() => ({}) as Json);
    const events: CalendarEvent[] = [];
    const earningsList = Array.isArray(earnings.earningsCalendar) ? (earnings.earningsCalendar as Json[]) : [];
    for (const e of earningsList) {
      const symbol = str(e.symbol);
      const date = str(e.date);
      if (!symbol || !date) continue;
      const quarter = num(e.quarter);
      const year = num(e.year);
      events.push({
        id: `earnings-${symbol}-${date}`,
        type: 'earnings',
        date,
        time: EARNINGS_HOURS[String(e.hour)] ?? null,
        title: `${symbol}${quarter && year ? ` Q${quarter} ${year}` : ''}`,
        description: null,
        impact: null,
        asset: symbol,
        currency: 'USD',
        forecast: fixed(e.epsEstimate),
        actual: fixed(e.epsActual),
        previous: null,
        amount: null,
        ratio: null,
      });
    }
    const economicList = Array.isArray(economic.economicCalendar) ? (economic.economicCalendar as Json[]) : [];
    for (const e of economicList) {
      const title = str(e.event);
      const time = str(e.time); // 'YYYY-MM-DD HH:MM:SS', UTC
      if (!title || !time || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(time)) continue;
      const unit = str(e.unit) ?? '';
      const withUnit = (v: unknown) => {
        const n = fixed(v);
        return n === null ? null : `${n}${unit}`;
      };
      const impact = String(e.impact ?? '').toLowerCase();
      events.push({
        id: `economic-${str(e.country) ?? 'xx'}-${time}-${title}`,
        type: 'economic',
        date: time.slice(0, 10),
        time: time.slice(11, 16),
        title,
        description: null,
        impact: IMPACTS.has(impact) ? (impact as 'high' | 'medium' | 'low') : null,
        asset: null,
        currency: str(e.country),
        forecast: withUnit(e.estimate),
        actual: withUnit(e.actual),
        previous: withUnit(e.prev),
        amount: null,
        ratio: null,
      });
    }
    return events;
  }

  /** A live provider covers every US stock of the selector. */
  fundamentalsSymbols(selector: readonly string[]): readonly string[] {
    return selector;
  }

  async fundamentals(symbol: string): Promise<Fundamentals | null> {
    const q = encodeURIComponent(symbol);
    const [profile, basics] = await Promise.all([
      this.get(`/stock/profile2?symbol=${q}`),
      this.get(`/stock/metric?symbol=${q}&metric=all`),
    ]);
    const name = str(profile.name);
    if (!name) return null; // Finnhub answers {} for a symbol it does not know
    const m = (basics.metric && typeof basics.metric === 'object' ? basics.metric : {}) as Json;
    const pick = (...keys: string[]) => {
      for (const k of keys) if (num(m[k]) !== null) return num(m[k]);
      return null;
    };
    // Finnhub gives capitalisation and shares in millions, revenue per share, and margins in percent.
    const millions = (v: number | null) => (v === null ? null : v * 1_000_000);
    const shares = millions(num(profile.shareOutstanding));
    const revenuePerShare = pick('revenuePerShareTTM', 'revenuePerShareAnnual');
    const revenue = shares !== null && revenuePerShare !== null ? Math.round(shares * revenuePerShare) : null;
    const netMargin = pick('netProfitMarginTTM', 'netProfitMarginAnnual');
    return {
      symbol,
      profile: {
        name,
        sector: str(profile.finnhubIndustry),
        market_capitalization: millions(num(profile.marketCapitalization)),
      },
      ratios: {
        pe: pick('peTTM', 'peBasicExclExtraTTM', 'peAnnual'),
        pb: pick('pbQuarterly', 'pbAnnual'),
        roe: pick('roeTTM', 'roeRfy'),
        roa: pick('roaTTM', 'roaRfy'),
        debt_to_equity: pick('totalDebt/totalEquityQuarterly', 'totalDebt/totalEquityAnnual'),
        current_ratio: pick('currentRatioQuarterly', 'currentRatioAnnual'),
        quick_ratio: pick('quickRatioQuarterly', 'quickRatioAnnual'),
        beta: pick('beta'),
      },
      margins: {
        gross_margin: pick('grossMarginTTM', 'grossMarginAnnual'),
        operating_margin: pick('operatingMarginTTM', 'operatingMarginAnnual'),
        net_margin: netMargin,
      },
      financials: {
        revenue,
        net_income: revenue !== null && netMargin !== null ? Math.round((revenue * netMargin) / 100) : null,
        eps: pick('epsTTM', 'epsBasicExclExtraItemsTTM', 'epsAnnual'),
        dividend_yield: pick('dividendYieldIndicatedAnnual', 'currentDividendYieldTTM'),
      },
    };
  }
}
