/**
 * An adapter shipped as an npm package: the host names the package in config `plugins`, and Gavel validates and
 * loads it like a built-in adapter folder. A published package would import the SDK from the installed Gavel; this
 * test fixture lives inside the repository, so it reaches the SDK by a relative path (valid from source and dist).
 */
import { defineAdapter, readJsonBeside, SDK_VERSION } from '../../../core/api/index.js';
import { createAcmeBidder } from './acme.js';

export default defineAdapter({
  name: 'acmex',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://bid.acme-exchange.example/openrtb2',
    maintainer: { email: 'prebid@acme-exchange.example' },
    capabilities: { site: { mediaTypes: ['banner', 'video'] }, app: { mediaTypes: ['banner', 'video'] } },
    ortbVersion: '2.6',
  },
  paramsSchema: readJsonBeside(import.meta.url, './params.schema.json'),
  create: (config) => createAcmeBidder(config),
});
