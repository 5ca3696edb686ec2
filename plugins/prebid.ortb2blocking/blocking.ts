/**
 * The ortb2blocking hooks, Prebid Server's module on Gavel's stages:
 *   bidder-request       each bidder is sent the blocks that apply to it (`badv`, `bapp`, `bcat`, `cattax`, per imp
 *                        `banner.btype` and `battr` per media type), unless the request already sets them;
 *   raw-bidder-response  with `enforce_blocks`, a bid that carries a blocked attribute is dropped and reported
 *                        (`seatnonbid`, the trace's messages), deals excepted as configured.
 */
import { isJsonObject, NonBidReason, type AuctionBid, type BidderRequestPayload, type BidsPayload, type HookContext, type HookResult, type Imp, type ModuleHooks } from '../../core/api/index.js';
import { dealExceptions, firstOrDefault, pickActive, pickIds, pickNames, readBlockingConfig, type ActionOverride, type BlockingConfig } from './config.js';

/** What one bidder was sent, kept for its response. */
interface SentBlocks {
  badv: readonly string[];
  bapp: readonly string[];
  bcat: readonly string[];
  cattax: number;
  /** Per imp id, per media type. */
  battr: Map<string, Partial<Record<'banner' | 'video' | 'audio', readonly number[]>>>;
}

const NO_BLOCKS: SentBlocks = { badv: [], bapp: [], bcat: [], cattax: 0, battr: new Map() };

/** IAB Content Category Taxonomy 1.0: the taxonomy bids are held to when the config names none. */
const DEFAULT_CATTAX = 1;

/** The config an account sets (`hooks.modules.prebid.ortb2blocking`) replaces the host's; read once per object. */
const accountConfigs = new WeakMap<object, { config: BlockingConfig; errors: string[] }>();

function configFor(context: HookContext, host: BlockingConfig | undefined): { config?: BlockingConfig; errors: string[] } {
  const own = context.accountConfig;
  if (!isJsonObject(own)) return { config: host, errors: [] };
  let read = accountConfigs.get(own);
  if (!read) {
    const errors: string[] = [];
    read = { config: readBlockingConfig(own, 'account hooks.modules.prebid.ortb2blocking', errors), errors };
    accountConfigs.set(own, read);
  }
  return read;
}

function impMediaTypes(imp: Imp): Set<string> {
  const types = new Set<string>();
  if (imp.audio) types.add('audio');
  if (imp.banner) types.add('banner');
  if (imp.native) types.add('native');
  if (imp.video) types.add('video');
  return types;
}

const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

export function createBlockingHooks(host: BlockingConfig | undefined): ModuleHooks {
  return {
    'bidder-request': { 'set-blocks': (payload, context) => setBlocks(payload, context, host) },
    'raw-bidder-response': { 'enforce-blocks': (payload, context) => enforceBlocks(payload, context, host) },
  };
}

function setBlocks(payload: Readonly<BidderRequestPayload>, context: HookContext, host: BlockingConfig | undefined): HookResult<BidderRequestPayload> | undefined {
  const { config, errors } = configFor(context, host);
  if (!config) return undefined;
  if (errors.length > 0) return { messages: errors };
  const { bidder, request } = payload;
  const messages: string[] = [];
  const requestTypes = new Set<string>();
  for (const imp of request.imp) for (const type of impMediaTypes(imp)) requestTypes.add(type);

  // Request-wide lists: the request's own when it sets one (enforced as sent), else the configured one.
  const list = (own: unknown, fallback: string[], field: 'badv' | 'bapp' | 'bcat', name: string): readonly string[] => {
    if (nonEmpty(own)) return own as string[];
    const chosen = firstOrDefault(bidder, requestTypes, pickNames, config[field].overrides[name], fallback);
    if (chosen.warning) messages.push(chosen.warning);
    if (chosen.error) throw new Error(`failed to update ${field} field: failed to get override for ${field}.${name}: ${chosen.error}`);
    return chosen.value;
  };
  let sent: SentBlocks;
  try {
    sent = {
      badv: list(request.badv, config.badv.blocked_adomain, 'badv', 'blocked_adomain'),
      bapp: list(request.bapp, config.bapp.blocked_app, 'bapp', 'blocked_app'),
      bcat: list(request.bcat, config.bcat.blocked_adv_cat, 'bcat', 'blocked_adv_cat'),
      cattax: typeof request.cattax === 'number' && request.cattax > 0 ? request.cattax : config.bcat.category_taxonomy,
      battr: new Map(),
    };
  } catch (err) {
    return { messages: [...messages, (err as Error).message] };
  }

  // Per imp: banner.btype, and battr of each media type the imp offers.
  const impChanges = new Map<string, Imp>();
  for (const imp of request.imp) {
    const types = impMediaTypes(imp);
    let updated: Imp | undefined;
    const impValues = (field: 'btype' | 'battr', name: string, fallback: number[]): readonly number[] => {
      const found = firstOrDefault(bidder, types, pickIds, config[field].overrides[name], fallback);
      if (found.warning) messages.push(found.warning);
      if (found.error) messages.push(`failed to get override for ${name}: ${found.error}`);
      return found.error ? [] : found.value;
    };
    if (imp.banner) {
      if (!nonEmpty(imp.banner.btype)) {
        const btype = impValues('btype', 'blocked_banner_type', config.btype.blocked_banner_type);
        if (btype.length > 0) updated = { ...imp, banner: { ...imp.banner, btype: [...btype] } };
      }
    }
    const attrs: Partial<Record<'banner' | 'video' | 'audio', readonly number[]>> = {};
    for (const type of ['banner', 'video', 'audio'] as const) {
      const object = imp[type];
      if (!object) continue;
      if (nonEmpty(object.battr)) {
        attrs[type] = object.battr as number[];
        continue;
      }
      const battr = impValues('battr', `blocked_${type}_attr`, config.battr[`blocked_${type}_attr`]);
      if (battr.length === 0) continue;
      attrs[type] = battr;
      updated ??= { ...imp };
      updated[type] = { ...(updated[type] as object), battr: [...battr] };
    }
    if (attrs.banner || attrs.video || attrs.audio) sent.battr.set(imp.id, attrs);
    if (updated) impChanges.set(imp.id, updated);
  }
  context.moduleContext[bidder] = sent;

  const setBadv = !nonEmpty(request.badv) && sent.badv.length > 0;
  const setBapp = !nonEmpty(request.bapp) && sent.bapp.length > 0;
  const setBcat = !nonEmpty(request.bcat) && sent.bcat.length > 0;
  const setCattax = !(typeof request.cattax === 'number' && request.cattax > 0) && sent.cattax > 0;
  if (!setBadv && !setBapp && !setBcat && !setCattax && impChanges.size === 0) return messages.length > 0 ? { messages } : undefined;
  return {
    action: 'update',
    changes: [
      (share) => {
        const next = { ...share.request };
        if (setBadv) next.badv = [...sent.badv];
        if (setBapp) next.bapp = [...sent.bapp];
        if (setBcat) next.bcat = [...sent.bcat];
        if (setCattax) next.cattax = sent.cattax;
        if (impChanges.size > 0) next.imp = share.request.imp.map((imp) => impChanges.get(imp.id) ?? imp);
        share.request = next;
      },
    ],
    messages: messages.length > 0 ? messages : undefined,
  };
}

/** Prebid Server's `blockAttribute`: the attributes of the bid that are blocked and not excepted for its deal. */
function blocked<T>(attributes: readonly T[] | undefined, blockedList: readonly T[], exceptions: readonly T[], blockUnknown: boolean): boolean {
  if (!attributes || attributes.length === 0) return blockUnknown;
  if (blockedList.length === 0) return false;
  return attributes.some((attribute) => blockedList.includes(attribute) && !exceptions.includes(attribute));
}

function enforceBlocks(payload: Readonly<BidsPayload>, context: HookContext, host: BlockingConfig | undefined): HookResult<BidsPayload> | undefined {
  const { config, errors } = configFor(context, host);
  if (!config || errors.length > 0 || payload.bids.length === 0) return undefined;
  const { badv, bcat, bapp, battr } = config;
  // Nothing enforced by default or by any override: nothing to check.
  const enforces = (section: { enforce_blocks: boolean; overrides: Record<string, unknown[]> }) => section.enforce_blocks || (section.overrides.enforce_blocks?.length ?? 0) > 0;
  if (!enforces(badv) && !enforces(bcat) && !enforces(bapp) && !enforces(battr)) return undefined;

  const { bidder } = payload;
  const sent = (context.moduleContext[bidder] as SentBlocks | undefined) ?? NO_BLOCKS;
  const messages: string[] = [];
  const dropped = new Map<AuctionBid, number>();
  const flag = (types: ReadonlySet<string>, section: { overrides: Record<string, ActionOverride[]> }, name: string, fallback: boolean): boolean => {
    const found = firstOrDefault(bidder, types, pickActive, section.overrides[name], fallback);
    if (found.warning) messages.push(found.warning);
    if (found.error) throw new Error(`failed to get override for ${name}: ${found.error}`);
    return found.value;
  };
  const exceptions = <T>(dealId: string | undefined, pick: typeof pickNames | typeof pickIds, overrides: ActionOverride[] | undefined, fallback: T[]): T[] => {
    if (!dealId) return [];
    const found = dealExceptions(dealId, pick as never, overrides, fallback);
    if (found.error) throw new Error(found.error);
    return found.value as T[];
  };
  try {
    for (const bid of payload.bids) {
      const types = new Set<string>([bid.type]);
      const dealId = bid.bid.dealid || undefined;
      const failed: string[] = [];
      let reason: number = NonBidReason.ResponseRejectedGeneral;
      if (flag(types, badv, 'enforce_blocks', badv.enforce_blocks)) {
        const unknown = flag(types, badv, 'block_unknown_adomain', badv.block_unknown_adomain);
        if (blocked(bid.bid.adomain, sent.badv, exceptions(dealId, pickNames, badv.overrides.allowed_adomain_for_deals, badv.allowed_adomain_for_deals), unknown)) failed.push('badv');
      }
      if (flag(types, bcat, 'enforce_blocks', bcat.enforce_blocks)) {
        const unknown = flag(types, bcat, 'block_unknown_adv_cat', bcat.block_unknown_adv_cat);
        if (blocked(bid.bid.cat, sent.bcat, exceptions(dealId, pickNames, bcat.overrides.allowed_adv_cat_for_deals, bcat.allowed_adv_cat_for_deals), unknown)) failed.push('bcat');
        // The reverse check: a bid naming a taxonomy must name the one the bidder was sent.
        const cattax = typeof bid.bid.cattax === 'number' ? bid.bid.cattax : 0;
        if (cattax !== 0 && cattax !== (sent.cattax || DEFAULT_CATTAX)) failed.push('cattax');
      }
      if (flag(types, bapp, 'enforce_blocks', bapp.enforce_blocks)) {
        const bundle = typeof bid.bid.bundle === 'string' ? bid.bid.bundle : '';
        if (blocked([bundle], sent.bapp, exceptions(dealId, pickNames, bapp.overrides.allowed_app_for_deals, bapp.allowed_app_for_deals), false)) failed.push('bapp');
      }
      if ((bid.type === 'banner' || bid.type === 'video' || bid.type === 'audio') && flag(types, battr, 'enforce_blocks', battr.enforce_blocks)) {
        const blockedAttrs = sent.battr.get(bid.bid.impid)?.[bid.type] ?? [];
        const attr = Array.isArray(bid.bid.attr) ? (bid.bid.attr as number[]) : undefined;
        const allowed = exceptions<number>(dealId, pickIds, battr.overrides[`allowed_${bid.type}_attr_for_deals`], battr[`allowed_${bid.type}_attr_for_deals`]);
        if (blocked(attr, blockedAttrs, allowed, false)) failed.push('battr');
      }
      if (failed.length === 0) continue;
      if (failed[0] === 'badv') reason = NonBidReason.ResponseRejectedAdvertiserExclusions;
      else if (failed[0] === 'bcat' || failed[0] === 'cattax') reason = NonBidReason.ResponseRejectedCategoryExclusions;
      else if (failed[0] === 'battr') reason = NonBidReason.ResponseRejectedInvalidCreative;
      dropped.set(bid, reason);
      messages.push(`Bid ${bid.bid.id} from bidder ${bidder} has been rejected, failed checks: ${failed.join(', ')}`);
    }
  } catch (err) {
    return { messages: [...messages, (err as Error).message] };
  }
  if (dropped.size === 0) return messages.length > 0 ? { messages } : undefined;
  for (const [bid, reason] of dropped) context.rejectBid(bid, reason);
  return {
    action: 'update',
    changes: [(response) => void (response.bids = response.bids.filter((bid) => !dropped.has(bid)))],
    messages,
  };
}
