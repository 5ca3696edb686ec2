/**
 * A package whose manifest is wrong on purpose (no maintainer, no capabilities): the host must refuse to boot with
 * it, naming the package. Written without defineAdapter, which would not compile such a manifest.
 */
const brokenManifest = {
  kind: 'adapter',
  name: 'broken-package',
  version: '1.0.0',
  sdkVersion: '2.0.0',
  info: { endpoint: 'https://broken.example/openrtb2', capabilities: {} },
  paramsSchema: { type: 'object' },
  create: () => ({ makeRequests: () => ({ requests: [] }), makeBids: () => ({ bids: [] }) }),
};

export default brokenManifest;
