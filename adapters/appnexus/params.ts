import { isJsonObject } from '../../core/api/index.js';

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

/** How Prebid Server reports a failure: a plain error (code 999) for undecodable JSON, bad input for the rest. */
export type ParamsError = { error: string; badInput: boolean };

type Raw = Record<string, unknown>;

class DecodeError extends Error {}

export function readAppnexusParams(impExt: unknown): { params: AppnexusParams } | ParamsError {
  let params: AppnexusParams;
  try {
    const ext = objectOrNull(impExt, 'appnexus.impExtIncoming');
    const bidder = objectOrNull(ext.bidder, 'openrtb_ext.ExtImpAppnexus');
    params = {
      placementId: stringInt(bidder.placement_id) || stringInt(bidder.placementId),
      invCode: text(bidder.inv_code, 'InvCode') || text(bidder.invCode, 'LegacyInvCode'),
      member: intString(bidder.member),
      keywords: keywordsToString(bidder.keywords),
      trafficSourceCode: text(bidder.traffic_source_code, 'TrafficSourceCode') || text(bidder.trafficSourceCode, 'LegacyTrafficSourceCode'),
      reserve: float(bidder.reserve, 'Reserve'),
      position: text(bidder.position, 'Position'),
      usePmtRule: bool(bidder.use_pmt_rule, 'UsePaymentRule') ?? bool(bidder.use_payment_rule, 'DeprecatedUsePaymentRule'),
      privateSizes: bidder.private_sizes,
      generateAdPodId: bool(bidder.generate_ad_pod_id, 'AdPodId') ?? false,
      extInvCode: text(bidder.ext_inv_code, 'ExtInvCode'),
      externalImpId: text(bidder.external_imp_id, 'ExternalImpId'),
      gpid: text(ext.gpid, 'GPID'),
    };
  } catch (err) {
    if (err instanceof DecodeError) return { error: err.message, badInput: false };
    throw err;
  }
  if (params.placementId === 0 && (params.invCode === '' || params.member === '')) {
    return { error: 'No placement or member+invcode provided', badInput: true };
  }
  return { params };
}

/**
 * AppNexus takes keywords as one string, `key=value` pairs joined by commas, a bare `key` when it has no value.
 * Publishers may send that string, a list of `{key, value[]}` or an object of `key: values[]`; any other JSON value
 * gives no keywords.
 */
function keywordsToString(keywords: unknown): string {
  if (typeof keywords === 'string') return keywords;
  let pairs: Array<[string, unknown]>;
  if (Array.isArray(keywords)) {
    pairs = keywords.map((entry) => {
      const object = objectOrNull(entry, 'openrtb_ext.extImpAppnexusKeyVal');
      return [text(object.key, 'Key'), object.value];
    });
  } else if (isJsonObject(keywords)) {
    pairs = Object.entries(keywords);
  } else {
    return '';
  }
  const terms = pairs.flatMap(([key, values]) => {
    const strings = stringList(values);
    return strings.length === 0 ? [key] : strings.map((value) => `${key}=${value}`);
  });
  return terms.join(',');
}

/** `jsonutil.StringInt`: an integer, or a string holding one (`""` is 0); anything else fails as `strconv.Atoi` does. */
function stringInt(value: unknown): number {
  if (value === undefined) return 0;
  const digits = typeof value === 'string' ? value : JSON.stringify(value);
  if (digits === '') return 0;
  if (!/^[+-]?\d+$/.test(digits) || !Number.isSafeInteger(Number(digits))) {
    throw new DecodeError(`strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`);
  }
  return Number(digits);
}

/** `jsonutil.IntString`: a string as it is, or an integer written as a string. */
function intString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return String(value);
  throw new DecodeError(`cannot unmarshal openrtb_ext.ExtImpAppnexus.Member: expects a string or an integer, got ${JSON.stringify(value)}`);
}

function stringList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => item === null || typeof item === 'string')) {
    throw new DecodeError(`cannot unmarshal keyword values: expect an array of strings, got ${JSON.stringify(value)}`);
  }
  return value.map((item) => (item === null ? '' : (item as string)));
}

function objectOrNull(value: unknown, type: string): Raw {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw new DecodeError(`cannot unmarshal ${type}: expect { or n, but found ${JSON.stringify(value)[0]}`);
  return value;
}

function text(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new DecodeError(`cannot unmarshal ${field}: expects " or n, but found ${JSON.stringify(value)[0]}`);
  return value;
}

function float(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number') throw new DecodeError(`cannot unmarshal ${field}: expects a number, got ${JSON.stringify(value)}`);
  return value;
}

function bool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new DecodeError(`cannot unmarshal ${field}: expects a boolean, got ${JSON.stringify(value)}`);
  return value;
}
