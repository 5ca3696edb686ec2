import type { ValidateFunction } from 'ajv';
import type { AdapterManifest, Bidder, BidderInfo, Capabilities, TypedBid } from '../../core/api/index.js';
import type { Container } from 'inversify';
import { bidCheckSettings } from '../../core/app/boot.js';
import { Tokens } from '../../core/app/tokens.js';
import type { BidderCatalog } from '../../core/bidders/catalog.js';
import type { BidCheckSettings } from '../../core/bids/index.js';
import type { GavelConfig } from '../../core/config/index.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import type { PluginCatalog } from '../../core/plugins/discover.js';

/** A mock bidder as Prebid Server endpoint fixtures describe it under `config.mockBidders`. */
export interface MockBidderSpec {
  bidderName: string;
  currency?: string;
  price?: number;
  dealid?: string;
  seat?: string;
}

const acceptAnything = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;

function mockBidder(adapterName: string, endpoint: string, spec: MockBidderSpec | undefined): Bidder {
  return {
    makeRequests: (request) => ({ requests: [{ method: 'POST', uri: endpoint, body: request, impIds: request.imp.map((imp) => imp.id) }] }),
    makeBids(request, _sent, response) {
      const answered = storedAnswerBids(request, response.body);
      if (answered) return answered;
      if (!spec) return { bids: [] };
      const bids: TypedBid[] = request.imp.map((imp) => {
        const typed: TypedBid = { bid: { id: `${adapterName}-bid`, impid: imp.id, price: spec.price ?? 0 }, type: 'banner' };
        if (spec.dealid) typed.bid.dealid = spec.dealid;
        if (spec.seat) typed.seat = spec.seat;
        return typed;
      });
      return { currency: spec.currency ?? 'USD', bids };
    },
  };
}

/**
 * A stored bid response (the only body a mock bidder reads: its transport answers `{}`) holds an OpenRTB answer,
 * which Prebid Server's test adapter reads as its server's: each bid for an imp of the request, typed banner, in the
 * answer's currency.
 */
function storedAnswerBids(request: { imp: Array<{ id: string }> }, body: string): { currency?: string; bids: TypedBid[] } | undefined {
  let answer: any;
  try {
    answer = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (answer === null || typeof answer !== 'object' || !Array.isArray(answer.seatbid)) return undefined;
  const impIds = new Set(request.imp.map((imp) => imp.id));
  const bids: TypedBid[] = [];
  for (const seatBid of answer.seatbid) {
    for (const bid of Array.isArray(seatBid?.bid) ? seatBid.bid : []) if (impIds.has(bid?.impid)) bids.push({ bid, type: 'banner' });
  }
  return { ...(typeof answer.cur === 'string' && answer.cur !== '' && { currency: answer.cur }), bids };
}

/** What a fixture's `bidderInfoOverrides` may change of a bidder's info, in Prebid Server's bidder-info words. */
export interface BidderInfoOverride {
  capabilities?: Capabilities;
  openrtb?: { 'multiformat-supported'?: boolean; version?: string };
}

/**
 * A fixture's `openrtb` as Gavel's bidder info says it: `multiformat-supported` is `openrtb.multiformat`, `version`
 * the OpenRTB version the bidder is sent (`ortbVersion`; Prebid Server sends 2.6 only to a bidder whose info says 2.6).
 */
function openrtbOverride(own: BidderInfo, override: BidderInfoOverride | undefined): Partial<Pick<BidderInfo, 'openrtb' | 'ortbVersion'>> {
  const multiformat = override?.openrtb?.['multiformat-supported'];
  const version = override?.openrtb?.version;
  return {
    ...(typeof multiformat === 'boolean' && { openrtb: { ...own.openrtb, multiformat } }),
    ...(typeof version === 'string' && { ortbVersion: version === '2.6' ? '2.6' : '2.5' }),
  };
}

/**
 * Puts mock bidders in place of every installed adapter, by rebinding the plugin catalog and the transport the real
 * ones use: each adapter keeps its name, info and capabilities, but its code answers every imp it is offered with one
 * banner bid `<adapter>-bid` at the configured price. No network: the transport answers in-process (`transport`,
 * which a runner may wrap before `configure` binds it). Bid validation is off, as on the exchange Prebid Server
 * recorded most of its endpoint fixtures with (its mock bids have a zero price and no creative id), unless
 * `realBidValidation`; every other bid check stays.
 */
export function mockBidderOverrides(
  specs: MockBidderSpec[] | undefined,
  options: { realParamsValidator?: boolean; realBidValidation?: boolean; bidderInfoOverrides?: Record<string, BidderInfoOverride> } = {},
): { transport: BidderTransport; configure(container: Container, transport?: BidderTransport): void } {
  const byAdapter = new Map<string, MockBidderSpec>();
  for (const spec of specs && specs.length > 0 ? specs : [{ bidderName: 'appnexus', price: 0 }]) byAdapter.set(spec.bidderName.toLowerCase(), spec);
  const transport: BidderTransport = {
    send: async () => ({ status: 200, body: '{}', headers: {} }),
    close: async () => undefined,
  };
  return {
    transport,
    configure(container, boundTransport = transport) {
      const installed = container.get<PluginCatalog>(Tokens.PluginCatalog);
      const plugins: PluginCatalog = { adapters: new Map(installed.adapters), modules: installed.modules };
      container.rebind(Tokens.PluginCatalog).toConstantValue(plugins);
      container.rebind(Tokens.BidderTransport).toConstantValue(boundTransport);
      container
        .rebind(Tokens.BidChecks)
        .toResolvedValue((config: GavelConfig, bidders: BidderCatalog): BidCheckSettings => ({ ...bidCheckSettings(config, bidders), validateBids: options.realBidValidation === true }), [Tokens.Config, Tokens.BidderCatalog]);
      for (const [name, loaded] of plugins.adapters) {
        if (loaded.manifest.info.aliasOf) continue;
        const endpoint = `http://mock.invalid/${name}`;
        const manifest: AdapterManifest = {
          ...loaded.manifest,
          info: {
            ...loaded.manifest.info,
            endpoint,
            // A mock needs no host setup, so an adapter shipped disabled for that reason takes part.
            disabled: false,
            capabilities: { ...loaded.manifest.info.capabilities, ...options.bidderInfoOverrides?.[name]?.capabilities },
            ...openrtbOverride(loaded.manifest.info, options.bidderInfoOverrides?.[name]),
          },
          create: (config) => mockBidder(name, config.endpoint, byAdapter.get(name)),
        };
        plugins.adapters.set(name, { ...loaded, manifest, validateParams: options.realParamsValidator ? loaded.validateParams : acceptAnything });
      }
    },
  };
}

/**
 * Prebid Server's endpoint test harnesses (auction, AMP, video) build their exchange without price floors (host
 * `price_floors.enabled` false), and Gavel's floors are on by default (reference-behaviour 13): the endpoint runners
 * switch them off, so an `imp.bidfloor` in a fixture is passed on to bidders but not enforced.
 */
export const FLOORS_OFF: Readonly<Record<string, unknown>> = Object.freeze({ 'prebid.floors': { enabled: false } });
