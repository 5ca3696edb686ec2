/**
 * The ortb2blocking hooks, Prebid Server's module on Gavel's stages:
 *   bidder-request       each bidder is sent the blocks that apply to it (`badv`, `bapp`, `bcat`, `cattax`, per imp
 *                        `banner.btype` and `battr` per media type), unless the request already sets them;
 *   raw-bidder-response  with `enforce_blocks`, a bid that carries a blocked attribute is dropped and reported
 *                        (`seatnonbid`, the trace's messages), deals excepted as configured.
 */
import { isJsonObject, NonBidReason, withFields, type AuctionBid, type BidderRequestPayload, type BidsPayload, type HookContext, type HookResult, type Imp, type ModuleHooks } from '../../core/api/index.js';
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

/**
 * A config ready for requests: what it decides for a bidder and a set of media types depends on nothing else, so each
 * decision is made once and kept (a bounded memo per config object; the host's at boot, each account's on first use).
 */
interface Compiled {
  config: BlockingConfig;
  errors: string[];
  requestBlocks: Map<string, RequestBlocks>;
  impBlocks: Map<string, ImpBlocks>;
  enforcement: Map<string, Enforcement>;
  /** True when some section enforces, by default or by an override: else responses are not looked at. */
  enforces: boolean;
}

interface RequestBlocks {
  badv: readonly string[];
  bapp: readonly string[];
  bcat: readonly string[];
  messages: readonly string[];
  error?: string;
}

interface ImpBlocks {
  btype: readonly number[];
  battr: Partial<Record<'banner' | 'video' | 'audio', readonly number[]>>;
  messages: readonly string[];
}

interface Enforcement {
  badv: boolean;
  badvUnknown: boolean;
  bcat: boolean;
  bcatUnknown: boolean;
  bapp: boolean;
  battr: boolean;
  messages: readonly string[];
  error?: string;
}

/** Decisions kept per config: enough for every bidder and media-type mix a host sees; a flood of aliases starts it over. */
const MEMO_LIMIT = 2000;

function remember<T>(memo: Map<string, T>, key: string, make: () => T): T {
  let value = memo.get(key);
  if (value === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    value = make();
    memo.set(key, value);
  }
  return value;
}

function compile(config: BlockingConfig, errors: string[]): Compiled {
  const enforces = (section: { enforce_blocks: boolean; overrides: Record<string, unknown[]> }) => section.enforce_blocks || (section.overrides.enforce_blocks?.length ?? 0) > 0;
  return {
    config,
    errors,
    requestBlocks: new Map(),
    impBlocks: new Map(),
    enforcement: new Map(),
    enforces: enforces(config.badv) || enforces(config.bcat) || enforces(config.bapp) || enforces(config.battr),
  };
}

/** The config an account sets (`hooks.modules.prebid.ortb2blocking`) replaces the host's; read once per object. */
const accountConfigs = new WeakMap<object, Compiled>();

function configFor(context: HookContext, host: Compiled | undefined): Compiled | undefined {
  const own = context.accountConfig;
  if (!isJsonObject(own)) return host;
  let read = accountConfigs.get(own);
  if (!read) {
    const errors: string[] = [];
    read = compile(readBlockingConfig(own, 'account hooks.modules.prebid.ortb2blocking', errors), errors);
    accountConfigs.set(own, read);
  }
  return read;
}

const TYPE_BITS: Readonly<Record<string, number>> = { audio: 1, banner: 2, native: 4, video: 8 };
const TYPE_SETS: ReadonlyArray<ReadonlySet<string>> = Array.from({ length: 16 }, (_, mask) => new Set(Object.keys(TYPE_BITS).filter((type) => mask & TYPE_BITS[type]!)));

function impMask(imp: Imp): number {
  return (imp.audio ? 1 : 0) | (imp.banner ? 2 : 0) | (imp.native ? 4 : 0) | (imp.video ? 8 : 0);
}

const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** Prebid Server's `firstOrDefaultOverride`, its warning kept in `messages`, its error thrown. */
function decide<T>(bidder: string, types: ReadonlySet<string>, pick: Parameters<typeof firstOrDefault<T>>[2], overrides: ActionOverride[] | undefined, fallback: T, messages: string[], what: string): T {
  const found = firstOrDefault(bidder, types, pick, overrides, fallback);
  if (found.warning) messages.push(found.warning);
  if (found.error) throw new Error(`failed to get override for ${what}: ${found.error}`);
  return found.value;
}

function requestBlocksFor(compiled: Compiled, bidder: string, mask: number): RequestBlocks {
  return remember(compiled.requestBlocks, `${bidder}|${mask}`, () => {
    const { badv, bapp, bcat } = compiled.config;
    const types = TYPE_SETS[mask]!;
    const messages: string[] = [];
    try {
      return {
        badv: decide(bidder, types, pickNames, badv.overrides.blocked_adomain, badv.blocked_adomain, messages, 'badv.blocked_adomain'),
        bapp: decide(bidder, types, pickNames, bapp.overrides.blocked_app, bapp.blocked_app, messages, 'bapp.blocked_app'),
        bcat: decide(bidder, types, pickNames, bcat.overrides.blocked_adv_cat, bcat.blocked_adv_cat, messages, 'bcat.blocked_adv_cat'),
        messages,
      };
    } catch (err) {
      return { badv: [], bapp: [], bcat: [], messages, error: (err as Error).message };
    }
  });
}

function impBlocksFor(compiled: Compiled, bidder: string, mask: number): ImpBlocks {
  return remember(compiled.impBlocks, `${bidder}|${mask}`, () => {
    const { btype, battr } = compiled.config;
    const types = TYPE_SETS[mask]!;
    const messages: string[] = [];
    const ids = (overrides: ActionOverride[] | undefined, fallback: number[], what: string): readonly number[] => {
      try {
        return decide(bidder, types, pickIds, overrides, fallback, messages, what);
      } catch (err) {
        messages.push((err as Error).message);
        return [];
      }
    };
    const blocks: ImpBlocks = { btype: [], battr: {}, messages };
    if (mask & TYPE_BITS.banner!) {
      blocks.btype = ids(btype.overrides.blocked_banner_type, btype.blocked_banner_type, 'imp.*.banner.btype');
      blocks.battr.banner = ids(battr.overrides.blocked_banner_attr, battr.blocked_banner_attr, 'imp.*.banner.battr');
    }
    if (mask & TYPE_BITS.video!) blocks.battr.video = ids(battr.overrides.blocked_video_attr, battr.blocked_video_attr, 'imp.*.video.battr');
    if (mask & TYPE_BITS.audio!) blocks.battr.audio = ids(battr.overrides.blocked_audio_attr, battr.blocked_audio_attr, 'imp.*.audio.battr');
    return blocks;
  });
}

function enforcementFor(compiled: Compiled, bidder: string, type: string): Enforcement {
  return remember(compiled.enforcement, `${bidder}|${type}`, () => {
    const { badv, bcat, bapp, battr } = compiled.config;
    const types = TYPE_SETS[TYPE_BITS[type] ?? 0]!;
    const messages: string[] = [];
    const flag = (section: { overrides: Record<string, ActionOverride[]> }, name: string, fallback: boolean, what: string) => decide(bidder, types, pickActive, section.overrides[name], fallback, messages, what);
    try {
      return {
        badv: flag(badv, 'enforce_blocks', badv.enforce_blocks, 'badv.enforce_blocks'),
        badvUnknown: flag(badv, 'block_unknown_adomain', badv.block_unknown_adomain, 'badv.block_unknown_adomain'),
        bcat: flag(bcat, 'enforce_blocks', bcat.enforce_blocks, 'bcat.enforce_blocks'),
        bcatUnknown: flag(bcat, 'block_unknown_adv_cat', bcat.block_unknown_adv_cat, 'bcat.block_unknown_adv_cat'),
        bapp: flag(bapp, 'enforce_blocks', bapp.enforce_blocks, 'bapp.enforce_blocks'),
        battr: type !== 'native' && flag(battr, 'enforce_blocks', battr.enforce_blocks, 'battr.enforce_blocks'),
        messages,
      };
    } catch (err) {
      return { badv: false, badvUnknown: false, bcat: false, bcatUnknown: false, bapp: false, battr: false, messages, error: (err as Error).message };
    }
  });
}

export function createBlockingHooks(hostConfig: BlockingConfig | undefined): ModuleHooks {
  const host = hostConfig ? compile(hostConfig, []) : undefined;
  return {
    'bidder-request': { 'set-blocks': (payload, context) => setBlocks(payload, context, host) },
    'raw-bidder-response': { 'enforce-blocks': (payload, context) => enforceBlocks(payload, context, host) },
  };
}

function setBlocks(payload: Readonly<BidderRequestPayload>, context: HookContext, host: Compiled | undefined): HookResult<BidderRequestPayload> | undefined {
  const compiled = configFor(context, host);
  if (!compiled) return undefined;
  if (compiled.errors.length > 0) return { messages: compiled.errors };
  const { bidder, request } = payload;
  const name = bidder.toLowerCase();
  let requestMask = 0;
  for (const imp of request.imp) requestMask |= impMask(imp);
  const decided = requestBlocksFor(compiled, name, requestMask);
  if (decided.error) return { messages: [...decided.messages, decided.error] };
  let messages: string[] | undefined = decided.messages.length > 0 ? [...decided.messages] : undefined;

  // Request-wide lists: the request's own when it sets one (enforced as sent), else the configured one.
  const ownBadv = nonEmpty(request.badv);
  const ownBapp = nonEmpty(request.bapp);
  const ownBcat = nonEmpty(request.bcat);
  const ownCattax = typeof request.cattax === 'number' && request.cattax > 0;
  const sent: SentBlocks = {
    badv: ownBadv ? (request.badv as string[]) : decided.badv,
    bapp: ownBapp ? (request.bapp as string[]) : decided.bapp,
    bcat: ownBcat ? (request.bcat as string[]) : decided.bcat,
    cattax: ownCattax ? (request.cattax as number) : compiled.config.bcat.category_taxonomy,
    battr: new Map(),
  };

  // Per imp: banner.btype, and battr of each media type the imp offers, unless the imp sets them.
  let impChanges: Map<number, Imp> | undefined;
  request.imp.forEach((imp, index) => {
    const blocks = impBlocksFor(compiled, name, impMask(imp));
    if (blocks.messages.length > 0) (messages ??= []).push(...blocks.messages);
    let updated: Imp | undefined;
    if (imp.banner && blocks.btype.length > 0 && !nonEmpty(imp.banner.btype)) updated = withFields(imp, { banner: withFields(imp.banner, { btype: [...blocks.btype] }) });
    const attrs: Partial<Record<'banner' | 'video' | 'audio', readonly number[]>> = {};
    let any = false;
    for (const type of ['banner', 'video', 'audio'] as const) {
      const object = imp[type];
      if (!object) continue;
      if (nonEmpty(object.battr)) {
        attrs[type] = object.battr as number[];
        any = true;
        continue;
      }
      const battr = blocks.battr[type];
      if (!battr || battr.length === 0) continue;
      attrs[type] = battr;
      any = true;
      updated ??= withFields(imp, {});
      updated[type] = withFields(updated[type]!, { battr: [...battr] }) as never;
    }
    if (any) sent.battr.set(imp.id, attrs);
    if (updated) (impChanges ??= new Map()).set(index, updated);
  });
  context.moduleContext[bidder] = sent;

  const setBadv = !ownBadv && sent.badv.length > 0;
  const setBapp = !ownBapp && sent.bapp.length > 0;
  const setBcat = !ownBcat && sent.bcat.length > 0;
  const setCattax = !ownCattax && sent.cattax > 0;
  if (!setBadv && !setBapp && !setBcat && !setCattax && !impChanges) return messages ? { messages } : undefined;
  return {
    action: 'update',
    changes: [
      (share) => {
        const target = withFields(share.request, {});
        if (setBadv) target.badv = [...sent.badv];
        if (setBapp) target.bapp = [...sent.bapp];
        if (setBcat) target.bcat = [...sent.bcat];
        if (setCattax) target.cattax = sent.cattax;
        if (impChanges) {
          target.imp = share.request.imp.slice();
          for (const [index, imp] of impChanges) if (target.imp[index]?.id === imp.id) target.imp[index] = imp;
        }
        share.request = target;
      },
    ],
    messages,
  };
}

/** Prebid Server's `blockAttribute`: the attributes of the bid that are blocked and not excepted for its deal. */
function blocked<T>(attributes: readonly T[] | undefined, blockedList: readonly T[], exceptions: readonly T[], blockUnknown: boolean): boolean {
  if (!attributes || attributes.length === 0) return blockUnknown;
  if (blockedList.length === 0) return false;
  return attributes.some((attribute) => blockedList.includes(attribute) && !exceptions.includes(attribute));
}

function enforceBlocks(payload: Readonly<BidsPayload>, context: HookContext, host: Compiled | undefined): HookResult<BidsPayload> | undefined {
  const compiled = configFor(context, host);
  if (!compiled || !compiled.enforces || compiled.errors.length > 0 || payload.bids.length === 0) return undefined;
  const { badv, bcat, bapp, battr } = compiled.config;
  const { bidder } = payload;
  const name = bidder.toLowerCase();
  const sent = (context.moduleContext[bidder] as SentBlocks | undefined) ?? NO_BLOCKS;
  let messages: string[] | undefined;
  let dropped: Map<AuctionBid, number> | undefined;
  const exceptions = <T>(dealId: string | undefined, pick: typeof pickNames | typeof pickIds, overrides: ActionOverride[] | undefined, fallback: T[]): T[] => {
    if (!dealId) return NO_EXCEPTIONS as unknown as T[];
    const found = dealExceptions(dealId, pick as never, overrides, fallback);
    if (found.error) throw new Error(found.error);
    return found.value as T[];
  };
  try {
    for (const bid of payload.bids) {
      const rules = enforcementFor(compiled, name, bid.type);
      if (rules.messages.length > 0) (messages ??= []).push(...rules.messages);
      if (rules.error) throw new Error(rules.error);
      const dealId = bid.bid.dealid || undefined;
      let failed: string[] | undefined;
      if (rules.badv && blocked(bid.bid.adomain, sent.badv, exceptions(dealId, pickNames, badv.overrides.allowed_adomain_for_deals, badv.allowed_adomain_for_deals), rules.badvUnknown)) (failed ??= []).push('badv');
      if (rules.bcat) {
        if (blocked(bid.bid.cat, sent.bcat, exceptions(dealId, pickNames, bcat.overrides.allowed_adv_cat_for_deals, bcat.allowed_adv_cat_for_deals), rules.bcatUnknown)) (failed ??= []).push('bcat');
        // The reverse check: a bid naming a taxonomy must name the one the bidder was sent.
        const cattax = typeof bid.bid.cattax === 'number' ? bid.bid.cattax : 0;
        if (cattax !== 0 && cattax !== (sent.cattax || DEFAULT_CATTAX)) (failed ??= []).push('cattax');
      }
      if (rules.bapp) {
        const bundle = typeof bid.bid.bundle === 'string' ? bid.bid.bundle : '';
        if (blocked([bundle], sent.bapp, exceptions(dealId, pickNames, bapp.overrides.allowed_app_for_deals, bapp.allowed_app_for_deals), false)) (failed ??= []).push('bapp');
      }
      if (rules.battr && (bid.type === 'banner' || bid.type === 'video' || bid.type === 'audio')) {
        const blockedAttrs = sent.battr.get(bid.bid.impid)?.[bid.type];
        const attr = Array.isArray(bid.bid.attr) ? (bid.bid.attr as number[]) : undefined;
        if (blockedAttrs && blocked(attr, blockedAttrs, exceptions<number>(dealId, pickIds, battr.overrides[`allowed_${bid.type}_attr_for_deals`], battr[`allowed_${bid.type}_attr_for_deals`]), false)) (failed ??= []).push('battr');
      }
      if (!failed) continue;
      const first = failed[0];
      const reason =
        first === 'badv'
          ? NonBidReason.ResponseRejectedAdvertiserExclusions
          : first === 'bcat' || first === 'cattax'
            ? NonBidReason.ResponseRejectedCategoryExclusions
            : first === 'battr'
              ? NonBidReason.ResponseRejectedInvalidCreative
              : NonBidReason.ResponseRejectedGeneral;
      (dropped ??= new Map()).set(bid, reason);
      (messages ??= []).push(`Bid ${bid.bid.id} from bidder ${bidder} has been rejected, failed checks: ${failed.join(', ')}`);
    }
  } catch (err) {
    return { messages: [...(messages ?? []), (err as Error).message] };
  }
  if (!dropped) return messages ? { messages } : undefined;
  for (const [bid, reason] of dropped) context.rejectBid(bid, reason);
  const gone = dropped;
  return {
    action: 'update',
    changes: [(response) => void (response.bids = response.bids.filter((bid) => !gone.has(bid)))],
    messages,
  };
}

const NO_EXCEPTIONS: readonly never[] = [];
