import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, util as undiciUtil } from 'undici';

const require = createRequire(import.meta.url);

/*
 * The two pieces of undici the transport uses, loaded alone: `import 'undici'` loads its whole API (fetch,
 * WebSocket, EventSource, caches, mocks: 110 modules and about 3 MB of heap in every worker) for one class and one
 * function. undici 7 publishes no exports map, so these paths are its own; a test holds them to the package's API.
 */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;
export const parseHeaders = (require('undici/lib/core/util.js') as typeof undiciUtil).parseHeaders;
