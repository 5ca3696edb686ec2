/**
 * AppNexus bidder params, read from `imp.ext.bidder`. The params schema has already been applied by the core, but
 * the adapter is also called directly (tests, other hosts), so every read here tolerates odd values.
 * Old camelCase spellings are honoured when the snake_case one is absent.
 */
export interface AppnexusParams {
  placementId?: number;
  invCode?: string;
  member?: string;
  keywords?: string;
  trafficSourceCode?: string;
  reserve?: number;
  position?: 'above' | 'below';
  usePmtRule?: boolean;
  generateAdPodId: boolean;
  privateSizes?: unknown[];
  extInvCode?: string;
  externalImpId?: string;
}

type Raw = Record<string, unknown>;

export function readAppnexusParams(bidderParams: unknown): { params: AppnexusParams } | { error: string } {
  if (bidderParams === null || typeof bidderParams !== 'object' || Array.isArray(bidderParams)) {
    return { error: 'imp.ext.bidder must hold the appnexus params object' };
  }
  const raw = bidderParams as Raw;
  const placement = readInteger(raw.placement_id ?? raw.placementId);
  if (placement === 'invalid') return { error: `placement_id must be an integer, got ${JSON.stringify(raw.placement_id ?? raw.placementId)}` };

  const params: AppnexusParams = {
    placementId: placement || undefined,
    invCode: nonEmptyString(raw.inv_code) ?? nonEmptyString(raw.invCode),
    member: idString(raw.member),
    keywords: keywordsToString(raw.keywords),
    trafficSourceCode: nonEmptyString(raw.traffic_source_code) ?? nonEmptyString(raw.trafficSourceCode),
    reserve: typeof raw.reserve === 'number' && Number.isFinite(raw.reserve) ? raw.reserve : undefined,
    position: raw.position === 'above' || raw.position === 'below' ? raw.position : undefined,
    usePmtRule: readBoolean(raw.use_pmt_rule) ?? readBoolean(raw.use_payment_rule),
    generateAdPodId: raw.generate_ad_pod_id === true,
    privateSizes: Array.isArray(raw.private_sizes) ? raw.private_sizes : undefined,
    extInvCode: nonEmptyString(raw.ext_inv_code),
    externalImpId: nonEmptyString(raw.external_imp_id),
  };
  if (params.placementId === undefined && (params.invCode === undefined || params.member === undefined)) {
    return { error: 'No placement or member+invcode provided' };
  }
  return { params };
}

/**
 * AppNexus takes keywords as one string, `key=value` pairs joined by commas, a bare `key` when it has no value.
 * Publishers may send that string, a list of `{key, value[]}` or an object of `key: values[]`.
 */
export function keywordsToString(keywords: unknown): string | undefined {
  if (typeof keywords === 'string') return keywords || undefined;
  let pairs: Array<[string, unknown]> = [];
  if (Array.isArray(keywords)) {
    pairs = keywords
      .filter((entry): entry is Raw => entry !== null && typeof entry === 'object' && typeof (entry as Raw).key === 'string')
      .map((entry) => [entry.key as string, entry.value]);
  } else if (keywords !== null && typeof keywords === 'object') {
    pairs = Object.entries(keywords as Raw);
  }
  const terms = pairs.flatMap(([key, values]) => {
    const strings = Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
    return strings.length === 0 ? [key] : strings.map((value) => `${key}=${value}`);
  });
  return terms.length > 0 ? terms.join(',') : undefined;
}

/** An integer given as a number or a numeric string; 0 when absent. */
function readInteger(value: unknown): number | 'invalid' {
  if (value === undefined || value === null || value === '') return 0;
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : 'invalid';
}

function idString(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return nonEmptyString(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}
