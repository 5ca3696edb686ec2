import { jsonAdminMount, type AdminMount } from '../metrics/index.js';
import type { CurrencyConverter } from './converter.js';

/**
 * `GET /currency/rates` on the admin listener, where Prebid Server serves it too: the rate converter's source, refresh
 * interval, last fetch and fetched rates are the host's own business, not the public's.
 */
export function currencyRatesMount(currency: Pick<CurrencyConverter, 'info'>): AdminMount {
  return jsonAdminMount('/currency/rates', () => JSON.stringify(currency.info()));
}
