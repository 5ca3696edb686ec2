import { jsonAdminMount, type AdminMount } from '../metrics/index.js';

export { buildOpenApiDocument, openApiPath, type OpenApiFacts } from './document.js';

/** `GET /openapi.json` on the admin listener: the document, made once at boot. */
export function openApiMount(document: Record<string, unknown>): AdminMount {
  const body = JSON.stringify(document);
  return jsonAdminMount('/openapi.json', () => body);
}
