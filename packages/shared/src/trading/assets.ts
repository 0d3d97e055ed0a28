import { REFERENCE_PRICES, REFERENCE_SNAPSHOT_DATE } from './reference-prices.js';

/**
 * The asset catalogue of client-platform.md §9: every symbol it names (it announces 37 but lists 38) in 7 categories,
 * each with the simulator's reference price (decision D18: the dated snapshot in reference-prices.ts, §9's base prices
 * kept for the 16 symbols §9 lists), its quote decimals and an annualised volatility per asset class. The server's price
 * sources, the chart and demo mode all use this one list.
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

/** D18's volatility classes (finer than the categories: metals and oil differ). */
export type AssetClass = 'fx_major' | 'fx_minor' | 'metal' | 'oil' | 'index' | 'stock' | 'crypto';

export interface Asset {
  symbol: string;
  name: string;
  category: AssetCategory;
  assetClass: AssetClass;
  /** The simulator's reference price (D18), as a decimal string with the symbol's decimals. */
  basePrice: string;
  /** Annualised volatility (σ of the yearly log return), e.g. 0.07 for 7 %. */
  annualVolatility: number;
  /** Decimals the price is quoted with. */
  decimals: number;
}

/** The date of the reference snapshot the base prices come from. */
export const REFERENCE_PRICES_DATE = REFERENCE_SNAPSHOT_DATE;

/**
 * D18: annualised volatility per symbol, within its class's band (major FX ~7 %, minor FX ~9 %, metals ~15 %, oil
 * ~35 %, indices ~18 %, stocks 30–50 %, crypto 60–90 %).
 */
const ANNUAL_VOLATILITY: Record<string, number> = {
  AAPL: 0.3,
  MSFT: 0.3,
  GOOGL: 0.33,
  AMZN: 0.35,
  META: 0.42,
  NFLX: 0.4,
  NVDA: 0.5,
  TSLA: 0.5,
  BTCUSD: 0.6,
  ETHUSD: 0.7,
  BNBUSD: 0.65,
  XRPUSD: 0.8,
  ADAUSD: 0.85,
  DOTUSD: 0.85,
  SOLUSD: 0.9,
};
export const CLASS_VOLATILITY: Record<AssetClass, number> = {
  fx_major: 0.07,
  fx_minor: 0.09,
  metal: 0.15,
  oil: 0.35,
  index: 0.18,
  stock: 0.4,
  crypto: 0.75,
};

const FX_CURRENCIES = new Set(['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'AUD', 'CAD', 'NZD']);
/** A currency pair: two currency codes (XAUUSD is a metal, not FX). */
export function isFxPair(symbol: string): boolean {
  return symbol.length === 6 && FX_CURRENCIES.has(symbol.slice(0, 3)) && FX_CURRENCIES.has(symbol.slice(3));
}

/**
 * D18 on §9's rule: JPY pairs 3, every other currency pair 5 (EURGBP, EURCHF included); otherwise as §9 says: symbols
 * without USD, or containing BTC or ETH, 2; the rest 5.
 */
export function priceDecimals(symbol: string): number {
  if (symbol.includes('JPY')) return 3;
  if (isFxPair(symbol)) return 5;
  if (!symbol.includes('USD') || symbol.includes('BTC') || symbol.includes('ETH')) return 2;
  return 5;
}

function assetClassOf(category: AssetCategory, symbol: string): AssetClass {
  switch (category) {
    case 'forex_major':
      return 'fx_major';
    case 'forex_minor':
      return 'fx_minor';
    case 'crypto':
      return 'crypto';
    case 'commodities':
      return symbol === 'WTIUSD' ? 'oil' : 'metal';
    case 'stocks_us':
      return 'stock';
    default:
      return 'index';
  }
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
  const reference = REFERENCE_PRICES[symbol];
  if (reference === undefined) throw new Error(`no reference price for ${symbol}`);
  const decimals = priceDecimals(symbol);
  const assetClass = assetClassOf(category, symbol);
  const annualVolatility = ANNUAL_VOLATILITY[symbol] ?? CLASS_VOLATILITY[assetClass];
  return { symbol, name, category, assetClass, basePrice: reference.toFixed(decimals), annualVolatility, decimals };
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
