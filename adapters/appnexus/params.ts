import { failInUnmarshaler, goBool, GoDecodeError, goDecodeErrorText, goFloat, goMap, goSlice, goString, goStruct, isJsonObject } from '../../core/api/index.js';

/**
 * AppNexus bidder params, read from `imp.ext` the way Prebid Server decodes them (`impExtIncoming`, holding
 * `openrtb_ext.ExtImpAppnexus` and `gpid`): a field of the wrong JSON type fails the imp, `null` is the zero value,
 * and the old camelCase spellings stand in when the snake_case one is empty. The core has already applied the params
 * schema, but the adapter is also called directly (tests, other hosts), so nothing here trusts the input.
 */
export interface AppnexusParams {
  placementId: number;
  invCode: string;
  member: string;
  keywords: string;
  trafficSourceCode: string;
  reserve: number;
  position: string;
  usePmtRule?: boolean;
  /** Raw JSON, passed on as it is (Prebid Server does no processing on it). */
  privateSizes?: unknown;
  generateAdPodId: boolean;
  extInvCode: string;
  externalImpId: string;
  gpid: string;
}

/** How Prebid Server reports a failure: `jsonutil.Unmarshal`'s error (FailedToUnmarshal, code 14) for undecodable JSON, bad input for the rest. */
export type ParamsError = { error: string; badInput: boolean };

/** Where each value sits for Go's decoder: `impExtIncoming` holds the params struct as `Bidder`. */
const IMP_EXT: readonly string[] = [];
const BIDDER = ['appnexus.impExtIncoming.Bidder'];
const param = (field: string): string[] => [...BIDDER, `openrtb_ext.ExtImpAppnexus.${field}`];

export function readAppnexusParams(impExt: unknown): { params: AppnexusParams } | ParamsError {
  let params: AppnexusParams;
  try {
    const ext = goStruct(impExt, IMP_EXT);
    const bidder = goStruct(ext.bidder, BIDDER);
    params = {
      placementId: stringInt(bidder.placement_id, 'PlacementId') || stringInt(bidder.placementId, 'DeprecatedPlacementId'),
      invCode: goString(bidder.inv_code, param('InvCode')) || goString(bidder.invCode, param('LegacyInvCode')),
      member: intString(bidder.member),
      keywords: keywordsToString(bidder.keywords),
      trafficSourceCode: goString(bidder.traffic_source_code, param('TrafficSourceCode')) || goString(bidder.trafficSourceCode, param('LegacyTrafficSourceCode')),
      reserve: goFloat(bidder.reserve, param('Reserve')),
      position: goString(bidder.position, param('Position')),
      usePmtRule: goBool(bidder.use_pmt_rule, param('UsePaymentRule')) ?? goBool(bidder.use_payment_rule, param('DeprecatedUsePaymentRule')),
      privateSizes: bidder.private_sizes,
      generateAdPodId: goBool(bidder.generate_ad_pod_id, param('AdPodId')) ?? false,
      extInvCode: goString(bidder.ext_inv_code, param('ExtInvCode')),
      externalImpId: goString(bidder.external_imp_id, param('ExternalImpId')),
      gpid: goString(ext.gpid, ['appnexus.impExtIncoming.GPID']),
    };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message, badInput: false };
    throw err;
  }
  if (params.placementId === 0 && (params.invCode === '' || params.member === '')) {
    return { error: 'No placement or member+invcode provided', badInput: true };
  }
  return { params };
}

/**
 * AppNexus takes keywords as one string, `key=value` pairs joined by commas, a bare `key` when it has no value.
 * Publishers may send that string, a list of `{key, value[]}` or an object of `key: values[]` (Go's
 * `ExtImpAppnexusKeywords.UnmarshalJSON`, which decodes the list or object in a decoding of its own, whose error it
 * returns); any other JSON value gives no keywords.
 */
function keywordsToString(keywords: unknown): string {
  if (typeof keywords === 'string') return keywords;
  let pairs: Array<[string, string[]]>;
  try {
    if (Array.isArray(keywords)) {
      const entries = goSlice(keywords, [], '[]openrtb_ext.extImpAppnexusKeyVal');
      pairs = entries.map((entry) => {
        const links = ['[]openrtb_ext.extImpAppnexusKeyVal'];
        const keyVal = goStruct(entry, links);
        return [goString(keyVal.key, [...links, 'openrtb_ext.extImpAppnexusKeyVal.Key']), stringList(keyVal.value, [...links, 'openrtb_ext.extImpAppnexusKeyVal.Values'])];
      });
    } else if (isJsonObject(keywords)) {
      pairs = Object.entries(goMap(keywords, [])).map(([key, values]) => [key, stringList(values, [])]);
    } else {
      return '';
    }
  } catch (err) {
    if (err instanceof GoDecodeError) failInUnmarshaler(param('Keywords'), err.message);
    throw err;
  }
  return pairs.flatMap(([key, values]) => (values.length === 0 ? [key] : values.map((value) => `${key}=${value}`))).join(',');
}

/** A `[]string`: a `null` item is the empty string. */
function stringList(value: unknown, links: readonly string[]): string[] {
  return goSlice(value, links, '[]string').map((item) => goString(item, [...links, '[]string']));
}

/**
 * `jsonutil.StringInt`: an integer, or a string holding one (`""` is 0); anything else fails in `strconv.Atoi`, on
 * the JSON text (a string without its quotes).
 */
function stringInt(value: unknown, field: string): number {
  if (value === undefined) return 0;
  const digits = typeof value === 'string' ? value : JSON.stringify(value);
  if (digits === '') return 0;
  if (!/^[+-]?\d+$/.test(digits)) failInUnmarshaler(param(field), `strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`);
  if (!Number.isSafeInteger(Number(digits))) failInUnmarshaler(param(field), `strconv.Atoi: parsing ${JSON.stringify(digits)}: value out of range`);
  return Number(digits);
}

/** `jsonutil.IntString`: a string as it is, or an integer written as a string. */
function intString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return String(value);
  throw new GoDecodeError(goDecodeErrorText(param('Member'), 'unmarshalerDecoder', `expects a string or an integer, got ${JSON.stringify(value)}`));
}
