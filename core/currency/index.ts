export { RateTable, currencyCode, readCurrencyFile, readRateMap, type CurrencyFile, type RateMap } from './rates.js';
export {
  conversionFailure,
  CurrencyConverter,
  createCurrencyConverter,
  strictConversion,
  type ConvertPrice,
  type CurrencyConverterOptions,
  type CurrencyService,
  type FetchedRatesState,
} from './converter.js';
export { currencyRatesMount } from './admin.js';
