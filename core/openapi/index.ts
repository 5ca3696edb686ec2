import type { AdminMount } from '../metrics/index.js';

export { buildOpenApiDocument, openApiPath, type OpenApiFacts } from './document.js';

/** `GET /openapi.json` on the admin listener: the document, made once at boot. */
export function openApiMount(document: Record<string, unknown>): AdminMount {
  const body = JSON.stringify(document);
  return {
    prefix: '/openapi.json',
    serve(req, res, path) {
      if (path !== '/openapi.json') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
  };
}
