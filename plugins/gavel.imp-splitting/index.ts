import { defineModule, SDK_VERSION } from '../../core/api/index.js';
import { createImpSplitter } from './imp-splitter.js';

/**
 * Built-in: the imp-splitting service decides which bidder sees which imp. An imp goes only to the bidders named in
 * its ext; each bidder gets only its own params; media types a bidder cannot take are removed (error code 2).
 */
export default defineModule({
  code: 'gavel.imp-splitting',
  version: '2.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Splits the request into one share per bidder (params, capabilities, secure, buyer ids).',
  provides: { 'imp-splitting': (_config, deps) => createImpSplitter(deps) },
});
