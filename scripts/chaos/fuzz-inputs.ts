import fc from 'fast-check';

/**
 * What the fuzzer sends, per endpoint: fast-check arbitraries mixing well-formed requests with hostile values in any
 * field (any JSON, lone surrogates, deep nesting, huge numbers, wrong types), plus raw bodies that are not JSON at
 * all. Each arbitrary yields a ready HTTP request.
 */
export interface FuzzRequest {
  method: 'GET' | 'POST';
  /** Path and query string. */
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

const nasty = fc.constantFrom('\ud800', '\udfff', 'x\u0000y', '%', '%E0%A4%A', '../../etc/passwd', '__proto__', 'constructor', '<script>alert(1)</script>', '1YNN', '9'.repeat(400), '-1', 'NaN', 'Infinity', '');
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), nasty);
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 300, 250));
/** Any JSON value, shallow enough to be generated fast; deep nesting comes from `deep` below. */
const json = fc.jsonValue({ maxDepth: 4 });
const deep = fc.integer({ min: 30, max: 3000 }).map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown);
const anyValue = fc.oneof({ weight: 4, arbitrary: json }, { weight: 2, arbitrary: text }, { weight: 1, arbitrary: number }, { weight: 1, arbitrary: deep });

const bidders = fc.constantFrom('healthy', 'drip', 'hang', 'appnexus', 'rubicon', 'nope', '__proto__', 'Healthy');
const impExt = fc.oneof({ weight: 3, arbitrary: bidders.map((bidder) => ({ [bidder]: {} })) }, { weight: 1, arbitrary: fc.dictionary(bidders, anyValue, { maxKeys: 3 }) }, { weight: 1, arbitrary: anyValue });
const banner = fc.oneof(fc.constant({ format: [{ w: 300, h: 250 }] }), fc.record({ w: anyValue, h: anyValue }, { requiredKeys: [] }), anyValue);
const imp = fc.record(
  { id: fc.oneof(fc.constant('1'), text), banner, video: fc.oneof(fc.constant({ mimes: ['video/mp4'], w: 640, h: 480 }), anyValue), ext: impExt, bidfloor: number, tagid: text },
  { requiredKeys: ['id'] },
);
const requestExt = fc.record(
  {
    prebid: fc.record(
      {
        aliases: fc.oneof(fc.dictionary(text, bidders, { maxKeys: 2 }), anyValue),
        targeting: fc.oneof(fc.constant({}), anyValue),
        cache: fc.oneof(fc.constant({ bids: {} }), anyValue),
        storedrequest: fc.oneof(fc.record({ id: text }), anyValue),
        debug: fc.oneof(fc.boolean(), anyValue),
        bidadjustmentfactors: anyValue,
        alternatebiddercodes: anyValue,
        multibid: anyValue,
        floors: anyValue,
        currency: anyValue,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const ortbRequest = fc.record(
  {
    id: fc.oneof(fc.constant('fuzz'), text, number),
    imp: fc.oneof({ weight: 4, arbitrary: fc.array(imp, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: anyValue }),
    site: fc.oneof(fc.constant({ page: 'https://publisher.example/' }), anyValue),
    app: anyValue,
    device: fc.oneof(fc.record({ ua: text, ip: text, ifa: text }, { requiredKeys: [] }), anyValue),
    user: fc.oneof(fc.record({ id: text, buyeruid: text, ext: anyValue }, { requiredKeys: [] }), anyValue),
    regs: fc.oneof(fc.record({ gdpr: number, us_privacy: text, gpp: text, gpp_sid: anyValue, ext: anyValue }, { requiredKeys: [] }), anyValue),
    tmax: fc.oneof(fc.constant(200), number, anyValue),
    test: fc.oneof(fc.constantFrom(0, 1), anyValue),
    cur: fc.oneof(fc.constant(['USD']), anyValue),
    source: anyValue,
    ext: fc.oneof({ weight: 3, arbitrary: requestExt }, { weight: 1, arbitrary: anyValue }),
  },
  { requiredKeys: ['id', 'imp'] },
);
/** Sets the value at a dotted path (`imp.0.ext`), making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const keys = path.split('.');
  let at: any = target;
  for (const key of keys.slice(0, -1)) at = at[key] = typeof at[key] === 'object' && at[key] !== null ? at[key] : {};
  at[keys[keys.length - 1]!] = value;
  return target;
}

/** A valid request with one field (at one of `paths`) replaced by a hostile value: most reach deep into the auction. */
function withOneHostileField(valid: () => Record<string, unknown>, paths: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.constantFrom(...paths), anyValue).map(([path, value]) => setPath(valid(), path, value));
}

const validAuction = () => ({
  id: 'fuzz',
  tmax: 200,
  site: { page: 'https://publisher.example/', publisher: { id: 'pub' } },
  imp: [{ id: '1', banner: { format: [{ w: 300, h: 250 }] }, ext: { healthy: {} } }],
  ext: { prebid: { targeting: {}, cache: { bids: {} } } },
});
const AUCTION_PATHS = [
  'id', 'tmax', 'test', 'cur', 'site', 'site.page', 'site.publisher', 'app', 'device', 'device.ua', 'device.geo', 'user', 'user.ext', 'user.eids',
  'regs', 'regs.gdpr', 'regs.us_privacy', 'regs.gpp', 'regs.ext', 'source', 'source.schain', 'imp.0', 'imp.0.id', 'imp.0.banner', 'imp.0.video',
  'imp.0.native', 'imp.0.ext', 'imp.0.ext.healthy', 'imp.0.ext.prebid', 'imp.0.bidfloor', 'imp.0.pmp', 'ext', 'ext.prebid', 'ext.prebid.aliases',
  'ext.prebid.targeting', 'ext.prebid.cache', 'ext.prebid.multibid', 'ext.prebid.floors', 'ext.prebid.bidadjustmentfactors',
  'ext.prebid.alternatebiddercodes', 'ext.prebid.storedrequest', 'ext.prebid.debug', 'ext.prebid.currency', 'ext.prebid.returnallbidstatus',
] as const;

/** A body that is not a JSON object: any text, a truncated request, bytes that are not UTF-8. */
const rawBody = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), ortbRequest.map((request) => JSON.stringify(request).slice(0, -3)), fc.constantFrom('', 'null', '[]', '"x"', '{', '{"id":'));

function jsonPost(path: string, body: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 5, arbitrary: body.map((value) => ({ method: 'POST' as const, path, body: JSON.stringify(value) })) },
    { weight: 1, arbitrary: rawBody.map((raw) => ({ method: 'POST' as const, path, body: raw })) },
  );
}

/** Percent-encodes the UTF-8 bytes of any string (a lone surrogate included, as the replacement character). */
function percentEncode(raw: string): string {
  let out = '';
  for (const byte of Buffer.from(raw, 'utf8')) out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

function query(keys: readonly string[]): fc.Arbitrary<string> {
  const value = fc.tuple(fc.oneof(text, number.map(String)), fc.boolean());
  return fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }).map((params) =>
    Object.entries(params)
      // Half the values keep a bare `%`: a malformed escape (`%`, `%E0`) reaches the server as sent.
      .map(([key, [raw, bare]]) => `${key}=${bare ? percentEncode(raw).replace(/%25/g, '%') : percentEncode(raw)}`)
      .join('&'),
  );
}

const ampKeys = ['tag_id', 'w', 'h', 'ow', 'oh', 'ms', 'slot', 'timeout', 'curl', 'account', 'targeting', 'debug', 'gdpr_consent', 'consent_string', 'gdpr_applies', 'consent_type', 'addtl_consent', 'us_privacy', 'gpp', 'gpp_sid'] as const;
const setuidKeys = ['bidder', 'uid', 'gdpr', 'gdpr_consent', 'f', 'account', 'gpp', 'gpp_sid'] as const;

const videoRequest = fc.record(
  {
    storedrequestid: text,
    podconfig: fc.oneof(fc.record({ durationrangesec: fc.oneof(fc.constant([15, 30]), anyValue), requireexactduration: fc.boolean(), pods: fc.oneof(fc.array(fc.record({ podid: number, adpoddurationsec: number, configid: text }), { maxLength: 3 }), anyValue) }), anyValue),
    site: fc.oneof(fc.constant({ page: 'https://publisher.example/', publisher: { id: 'p' } }), anyValue),
    video: fc.oneof(fc.constant({ mimes: ['video/mp4'], protocols: [2], w: 640, h: 480 }), anyValue),
    user: anyValue,
    regs: anyValue,
    device: anyValue,
  },
  { requiredKeys: [] },
);

const cookieSyncRequest = fc.record(
  {
    bidders: fc.oneof(fc.array(bidders, { maxLength: 4 }), anyValue),
    gdpr: fc.oneof(fc.constantFrom(0, 1), anyValue),
    gdpr_consent: text,
    us_privacy: text,
    gpp: text,
    gpp_sid: fc.oneof(text, anyValue),
    limit: fc.oneof(number, anyValue),
    coopSync: fc.oneof(fc.boolean(), anyValue),
    filterSettings: anyValue,
    account: text,
  },
  { requiredKeys: [] },
);

const cachePuts = fc.record(
  { puts: fc.oneof(fc.array(fc.record({ type: fc.oneof(fc.constantFrom('json', 'xml'), text), value: anyValue, ttlseconds: fc.oneof(number, anyValue), key: text }, { requiredKeys: [] }), { maxLength: 12 }), anyValue) },
  { requiredKeys: [] },
);

/** The six endpoints the fuzzer drives, each with its generator. */
export const FUZZ_ENDPOINTS: Record<string, fc.Arbitrary<FuzzRequest>> = {
  '/openrtb2/auction': jsonPost('/openrtb2/auction', fc.oneof({ weight: 3, arbitrary: withOneHostileField(validAuction, AUCTION_PATHS) }, { weight: 1, arbitrary: fc.constant(null).map(validAuction) }, { weight: 2, arbitrary: ortbRequest })),
  '/openrtb2/video': jsonPost('/openrtb2/video', videoRequest),
  '/openrtb2/amp': query(ampKeys).map((q) => ({ method: 'GET' as const, path: `/openrtb2/amp?${q}` })),
  '/cookie_sync': jsonPost('/cookie_sync', cookieSyncRequest),
  '/setuid': query(setuidKeys).map((q) => ({ method: 'GET' as const, path: `/setuid?${q}` })),
  '/cache': fc.oneof(
    { weight: 3, arbitrary: jsonPost('/cache', cachePuts) },
    { weight: 1, arbitrary: fc.oneof(text, fc.uuid()).map((uuid) => ({ method: 'GET' as const, path: `/cache?uuid=${percentEncode(uuid)}` })) },
  ),
};

/** `count` requests for one endpoint, the same for the same seed. */
export function fuzzRequests(endpoint: string, count: number, seed: number): FuzzRequest[] {
  return fc.sample(FUZZ_ENDPOINTS[endpoint]!, { numRuns: count, seed });
}
