import type { EndpointServices } from '../app/endpoints.js';
import type { EndpointHandler } from '../http/app.js';

/** GET /openrtb2/amp (placeholder until the AMP endpoint lands). */
export function ampRoutes(_services: EndpointServices): { get: Record<string, EndpointHandler> } {
  return { get: {} };
}
