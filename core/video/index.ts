import type { EndpointServices } from '../app/endpoints.js';
import type { EndpointHandler } from '../http/app.js';
import { CategoryMappings } from './category-mappings.js';
import { handleVideo } from './video-endpoint.js';

export { CategoryMappings } from './category-mappings.js';
export { checkVideoRequest, type VideoRequest } from './video-request.js';

/**
 * POST /openrtb2/video. The host's category mapping files are read here, once at boot: a missing or malformed file
 * stops the server with a GavelError naming the `video.categoryMappings` key.
 */
export function videoRoutes(services: EndpointServices): { jsonPost: Record<string, EndpointHandler> } {
  const videoServices = { ...services, categories: CategoryMappings.load(services.config.video.categoryMappings) };
  return { jsonPost: { '/openrtb2/video': (request) => handleVideo(request, videoServices) } };
}
