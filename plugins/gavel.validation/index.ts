import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { createValidateRequestHook } from './hooks/validate-request.js';

/** The core's request validation, registered like any module so that a host can extend or replace it. */
export default defineModule({
  code: 'gavel.validation',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Validates auction requests (400 with one line per problem) and applies the normalisations validation implies.',
  stages: ['validate-request'],
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  create(_config, deps) {
    return { 'validate-request': { validate: createValidateRequestHook(deps) } };
  },
});
