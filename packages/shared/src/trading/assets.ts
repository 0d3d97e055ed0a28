/**
 * The asset catalogue of client-platform.md §9: every symbol it names (it announces 37 but lists 38) in 7 categories, the simulator's base price and volatility
 * per symbol (the table of §9; every symbol it does not list starts at 100 with volatility .005), and the price
 * decimals rule. The server's price sources, the chart and demo mode all use this one list.
 */
export const ASSET_CATEGORIES = [
  { id: 'forex_major', label: 'Основные валютные пары', label_en: 'Major currency pairs' },
  { id: 'forex_minor', label: 'Минорные валютные пары', label_en: 'Minor currency pairs' },
  { id: 'crypto', label: 'Криптовалюты', label_en: 'Cryptocurrencies' },
  { id: 'commodities', label: 'Драгметаллы и товары', label_en: 'Metals and commodities' },
  { id: 'stocks_us', label: 'Топовые акции США', label_en: 'Top US stocks' },
  { id: 'indices', label: 'Основные индексы', label_en: 'Major indices' },
  { id: 'indices_eu', label: 'Европейские индексы', label_en: 'European indices' },
] as const;
export type AssetCategory = (typeof ASSET_CATEGORIES)[number]['id'];

export interface Asset {
  symbol: string;
  name: string;
  category: AssetCategory;
  /** The simulator's starting price, as a decimal string with the symbol's decimals. */
  basePrice: string;
  /** The simulator's volatility: one tick moves by (random − 0.5) × volatility × price. */
  volatility: number;
  /** Decimals the price is quoted with. */
  decimals: number;
}

/** §9's simulated prices table; a symbol missing here starts at 100 with volatility .005. */
const SIMULATED: Record<string, [basePrice: number, volatility: number]> = {
  EURUSD: [1.1146, 0.0002],
  GBPUSD: [1.295, 0.0003],
  USDJPY: [143.21, 0.002],
  USDCHF: [0.865, 0.0002],
  AUDUSD: [0.672, 0.0003],
  BTCUSD: [67500, 0.01],
  ETHUSD: [2534, 0.012],
  XAUUSD: [2670.5, 0.005],
  XAGUSD: [31.2, 0.008],
  WTIUSD: [75.85, 0.01],
  AAPL: [227.5, 0.008],
  TSLA: [248.3, 0.012],
  GOOGL: [167.2, 0.01],
  MSFT: [415.85, 0.007],
  SPX500: [5751.2, 0.005],
  NASDAQ: [18137.85, 0.007],
};
const DEFAULT_SIMULATED: [number, number] = [100, 0.005];

/** §9: symbols containing JPY 3; symbols without USD, or containing BTC or ETH, 2; otherwise 5. */
export function priceDecimals(symbol: string): number {
  if (symbol.includes('JPY')) return 3;
  if (!symbol.includes('USD') || symbol.includes('BTC') || symbol.includes('ETH')) return 2;
  return 5;
}

const CATALOGUE: [AssetCategory, string, string][] = [
  ['forex_major', 'EURUSD', 'EUR/USD'],
  ['forex_major', 'GBPUSD', 'GBP/USD'],
  ['forex_major', 'USDJPY', 'USD/JPY'],
  ['forex_major', 'USDCHF', 'USD/CHF'],
  ['forex_major', 'AUDUSD', 'AUD/USD'],
  ['forex_major', 'USDCAD', 'USD/CAD'],
  ['forex_major', 'NZDUSD', 'NZD/USD'],
  ['forex_minor', 'EURGBP', 'EUR/GBP'],
  ['forex_minor', 'EURJPY', 'EUR/JPY'],
  ['forex_minor', 'GBPJPY', 'GBP/JPY'],
  ['forex_minor', 'EURCHF', 'EUR/CHF'],
  ['crypto', 'BTCUSD', 'Bitcoin'],
  ['crypto', 'ETHUSD', 'Ethereum'],
  ['crypto', 'BNBUSD', 'BNB'],
  ['crypto', 'ADAUSD', 'Cardano'],
  ['crypto', 'SOLUSD', 'Solana'],
  ['crypto', 'XRPUSD', 'XRP'],
  ['crypto', 'DOTUSD', 'Polkadot'],
  ['commodities', 'XAUUSD', 'Gold'],
  ['commodities', 'XAGUSD', 'Silver'],
  ['commodities', 'WTIUSD', 'WTI Crude Oil'],
  ['commodities', 'XPDUSD', 'Palladium'],
  ['commodities', 'XPTUSD', 'Platinum'],
  ['stocks_us', 'AAPL', 'Apple'],
  ['stocks_us', 'MSFT', 'Microsoft'],
  ['stocks_us', 'GOOGL', 'Alphabet (Google)'],
  ['stocks_us', 'AMZN', 'Amazon'],
  ['stocks_us', 'TSLA', 'Tesla'],
  ['stocks_us', 'META', 'Meta Platforms'],
  ['stocks_us', 'NVDA', 'NVIDIA'],
  ['stocks_us', 'NFLX', 'Netflix'],
  ['indices', 'SPX500', 'S&P 500'],
  ['indices', 'NASDAQ', 'NASDAQ 100'],
  ['indices', 'DJI', 'Dow Jones'],
  ['indices', 'RUSSELL2000', 'Russell 2000'],
  ['indices_eu', 'DAX', 'DAX 40'],
  ['indices_eu', 'FTSE', 'FTSE 100'],
  ['indices_eu', 'CAC40', 'CAC 40'],
];

export const ASSETS: readonly Asset[] = CATALOGUE.map(([category, symbol, name]) => {
  const [base, volatility] = SIMULATED[symbol] ?? DEFAULT_SIMULATED;
  const decimals = priceDecimals(symbol);
  return { symbol, name, category, basePrice: base.toFixed(decimals), volatility, decimals };
});

export const ASSET_SYMBOLS: readonly string[] = ASSETS.map((a) => a.symbol);

/** client-platform.md §9: the trading screen opens on EURUSD. */
export const DEFAULT_ASSET = 'EURUSD';

const BY_SYMBOL = new Map(ASSETS.map((a) => [a.symbol, a]));

export function findAsset(symbol: string): Asset | undefined {
  return BY_SYMBOL.get(symbol);
}

export function isAssetSymbol(symbol: string): boolean {
  return BY_SYMBOL.has(symbol);
}
