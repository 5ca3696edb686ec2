/**
 * Test fixture: one call per auction; the answer's body says what makeBids returns, `{"bids": [{impid, price}],
 * "configs": [{impId, config}]}`, each config under the name the bidder runs as (`config.name`), as Prebid Server's
 * adapters that name themselves do.
 */
import { defineAdapter, SDK_VERSION, type FledgeAuctionConfig, type TypedBid } from '../../../core/api/index.js';

interface Answer {
  bids?: Array<{ impid: string; price: number }>;
  configs?: Array<{ impId: string; config: unknown }>;
}

export default defineAdapter({
  name: 'fledger',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: {
    endpoint: 'https://bid.fledger.example/openrtb2',
    maintainer: { email: 'prebid@fledger.example' },
    capabilities: { site: { mediaTypes: ['banner'] } },
  },
  paramsSchema: { type: 'object' },
  create: (bidderConfig) => ({
    makeRequests: (request) => ({ requests: [{ method: 'POST', uri: bidderConfig.endpoint, body: request, impIds: request.imp.map((imp) => imp.id) }] }),
    makeBids: (_request, _sent, response) => {
      const answer = JSON.parse(response.body) as Answer;
      const bids: TypedBid[] = (answer.bids ?? []).map(({ impid, price }, i) => ({ bid: { id: `b${i}`, impid, price, crid: 'c' }, type: 'banner' }));
      if (!answer.configs) return { bids };
      const fledgeAuctionConfigs: FledgeAuctionConfig[] = answer.configs.map(({ impId, config }) => ({ impId, config, adapter: bidderConfig.name }));
      return { bids, fledgeAuctionConfigs };
    },
  }),
});
