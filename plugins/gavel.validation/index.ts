import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { createRequestValidator } from './request-validator.js';

/** The core's request validation: the built-in request-validation service, replaceable by a module that provides it. */
export default defineModule({
  code: 'gavel.validation',
  version: '2.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Validates auction requests (400 with one line per problem) and applies the normalisations validation implies.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  provides: { 'request-validation': (_config, deps) => createRequestValidator(deps) },
});
