import { HOOK_POINTS, MEDIA_TYPES, STAGES } from '../api/index.js';

const mediaTypes = { type: 'object', required: ['mediaTypes'], additionalProperties: false, properties: { mediaTypes: { type: 'array', items: { enum: [...MEDIA_TYPES] } } } };
const syncEndpoint = { type: 'object', required: ['url'], additionalProperties: false, properties: { url: { type: 'string' }, userMacro: { type: 'string' } } };

const common = {
  version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+([-+].*)?$' },
  sdkVersion: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+([-+].*)?$' },
};

/** Shape every adapter manifest must have. Functions are checked separately (JSON schema cannot see them). */
export const adapterManifestSchema = {
  type: 'object',
  required: ['kind', 'name', 'version', 'sdkVersion', 'info'],
  properties: {
    kind: { const: 'adapter' },
    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' },
    ...common,
    paramsSchema: { type: 'object' },
    info: {
      type: 'object',
      required: ['maintainer', 'capabilities'],
      additionalProperties: false,
      properties: {
        endpoint: { type: 'string' },
        maintainer: { type: 'object', required: ['email'], properties: { email: { type: 'string', minLength: 3 } } },
        capabilities: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { site: mediaTypes, app: mediaTypes, dooh: mediaTypes },
        },
        gvlVendorId: { type: 'integer', minimum: 0 },
        userSync: {
          type: 'object',
          additionalProperties: false,
          properties: { key: { type: 'string' }, iframe: syncEndpoint, redirect: syncEndpoint, supportCors: { type: 'boolean' } },
        },
        aliasOf: { type: 'string' },
        disabled: { type: 'boolean' },
        ortbVersion: { enum: ['2.5', '2.6'] },
        endpointCompression: { enum: ['none', 'gzip'] },
        openrtb: {
          type: 'object',
          additionalProperties: false,
          properties: { multiformat: { type: 'boolean' }, gppSupported: { type: 'boolean' } },
        },
        geoscope: { type: 'array', items: { type: 'string' } },
        modifyingVastXmlAllowed: { type: 'boolean' },
        debug: { type: 'object', required: ['allow'], additionalProperties: false, properties: { allow: { type: 'boolean' } } },
      },
    },
  },
};

export const moduleManifestSchema = {
  type: 'object',
  required: ['kind', 'code', 'version', 'sdkVersion'],
  properties: {
    kind: { const: 'module' },
    code: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*\\.[a-z0-9][a-z0-9_-]*$' },
    ...common,
    description: { type: 'string' },
    stages: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...STAGES] } },
    configSchema: { type: 'object' },
    provides: { type: 'object', minProperties: 1, propertyNames: { enum: [...HOOK_POINTS] } },
  },
};
