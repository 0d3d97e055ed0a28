/** Market information views (client-platform.md §2.8, §2.9), mounted by the trading screen's view buttons. */
export { EconomicCalendarView } from './EconomicCalendarView';
export { FundamentalsView } from './FundamentalsView';
