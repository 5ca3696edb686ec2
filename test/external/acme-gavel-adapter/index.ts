/**
 * An adapter shipped as an npm package: the host names the package in config `plugins`, and Gavel validates and
 * loads it like a built-in adapter folder. It imports the SDK by package name, as a published adapter does (inside
 * this repository the name resolves to Gavel itself).
 */
import { defineAdapter, readJsonBeside, SDK_VERSION } from 'gavel-auction/sdk';
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
