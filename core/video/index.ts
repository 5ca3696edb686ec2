import type { EndpointServices } from '../app/endpoints.js';
import type { EndpointHandler } from '../http/app.js';

/** POST /openrtb2/video (placeholder until the video endpoint lands). */
export function videoRoutes(_services: EndpointServices): { jsonPost: Record<string, EndpointHandler> } {
  return { jsonPost: {} };
}
