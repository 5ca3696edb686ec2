import type { AdminMount } from '../metrics/admin-server.js';
import type { CurrencyConverter } from './converter.js';

/**
 * `GET /currency/rates` on the admin listener, where Prebid Server serves it too: the rate converter's source, refresh
 * interval, last fetch and fetched rates are the host's own business, not the public's.
 */
export function currencyRatesMount(currency: Pick<CurrencyConverter, 'info'>): AdminMount {
  return {
    prefix: '/currency/rates',
    serve(req, res, path) {
      if (path !== '/currency/rates') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(currency.info()));
    },
  };
}
