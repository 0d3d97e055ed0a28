export * from './assets.js';
export * from './decimal.js';
export * from './durations.js';
export * from './money.js';
export * from './settlement.js';
export * from './trade-check.js';
export * from './schemas.js';
