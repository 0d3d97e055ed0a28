/**
 * Decision D18: the simulator's reference prices, a dated snapshot shipped with the project.
 *
 * The date is the session the values stand for: approximate closing levels of Friday 27 September 2024, the period
 * client-platform.md §9's table comes from (its 16 base prices are kept exactly, as the spec asks). The minor FX
 * crosses are derived from §9's majors (EURGBP = EURUSD / GBPUSD, …) so that the simulated quotes agree with each other
 * at the start. Values are reference levels for a simulation, not market data to trade on.
 */
export const REFERENCE_SNAPSHOT_DATE = '2024-09-27';

export const REFERENCE_PRICES: Readonly<Record<string, number>> = {
  // §9's table, unchanged
  EURUSD: 1.1146,
  GBPUSD: 1.295,
  USDJPY: 143.21,
  USDCHF: 0.865,
  AUDUSD: 0.672,
  BTCUSD: 67500,
  ETHUSD: 2534,
  XAUUSD: 2670.5,
  XAGUSD: 31.2,
  WTIUSD: 75.85,
  AAPL: 227.5,
  TSLA: 248.3,
  GOOGL: 167.2,
  MSFT: 415.85,
  SPX500: 5751.2,
  NASDAQ: 18137.85,
  // The snapshot for every symbol §9 does not list
  USDCAD: 1.3542,
  NZDUSD: 0.6285,
  EURGBP: 0.8607,
  EURJPY: 159.622,
  GBPJPY: 185.457,
  EURCHF: 0.96413,
  BNBUSD: 585.4,
  ADAUSD: 0.3785,
  SOLUSD: 152.3,
  XRPUSD: 0.5912,
  DOTUSD: 4.521,
  XPDUSD: 1005.5,
  XPTUSD: 985.2,
  AMZN: 187.97,
  META: 567.36,
  NVDA: 121.4,
  NFLX: 705.5,
  DJI: 42313.0,
  RUSSELL2000: 2224.7,
  DAX: 19473.6,
  FTSE: 8320.8,
  CAC40: 7791.8,
};
