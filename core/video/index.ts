import type { EndpointServices } from '../app/endpoints.js';
import type { EndpointHandler } from '../http/app.js';
import { handleVideo } from './video-endpoint.js';

export { checkVideoRequest, type VideoRequest } from './video-request.js';

/** POST /openrtb2/video. */
export function videoRoutes(services: EndpointServices): { jsonPost: Record<string, EndpointHandler> } {
  return { jsonPost: { '/openrtb2/video': (request) => handleVideo(request, services) } };
}
