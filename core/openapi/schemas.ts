/**
 * JSON schemas (2020-12, as OpenAPI 3.1 reads them) of what the public endpoints take and give, for the endpoints
 * whose input is checked by hand-written rules rather than a schema (the auction's request validation service, the
 * user sync readers, the bid cache's put check): these describe the shape those rules accept, and
 * test/openapi/openapi.test.ts holds them to real requests and answers. Endpoints that validate with a schema
 * (video, bidder params, adapter info) contribute that schema itself (document.ts).
 */

type Schema = Record<string, unknown>;

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const number = { type: 'number' } as const;
const object = { type: 'object' } as const;
const stringList = { type: 'array', items: string } as const;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A bidder error or warning as responses carry them (`ext.errors.<bidder>[]`). */
const ErrorEntry: Schema = { type: 'object', required: ['code', 'message'], properties: { code: integer, message: string } };
const ErrorsByScope: Schema = { type: 'object', additionalProperties: { type: 'array', items: ref('ErrorEntry') } };

const Format: Schema = { type: 'object', properties: { w: integer, h: integer, wratio: integer, hratio: integer, wmin: integer } };

const Imp: Schema = {
  type: 'object',
  required: ['id'],
  description: 'One slot. At least one of banner, video, audio, native. Bidders and their params are named in ext (ext.<bidder> or ext.prebid.bidder.<bidder>).',
  properties: {
    id: { type: 'string', minLength: 1 },
    banner: { type: 'object', properties: { format: { type: 'array', items: Format }, w: integer, h: integer } },
    video: { type: 'object', properties: { mimes: stringList, w: integer, h: integer, minduration: integer, maxduration: integer, protocols: { type: 'array', items: integer } } },
    audio: { type: 'object', properties: { mimes: stringList } },
    native: { type: 'object', properties: { request: { type: ['string', 'object'] }, ver: string } },
    tagid: string,
    bidfloor: { type: 'number', minimum: 0 },
    bidfloorcur: { type: 'string', pattern: '^[A-Z]{3}$' },
    secure: { enum: [0, 1] },
    instl: { enum: [0, 1] },
    ext: { type: 'object', properties: { prebid: { type: 'object', properties: { bidder: ref('BidderParams') } } }, allOf: [ref('BidderParams')] },
  },
};

/** The OpenRTB 2.5/2.6 request of `POST /openrtb2/auction`: the fields Gavel reads; every object may carry more. */
const BidRequest: Schema = {
  type: 'object',
  required: ['id', 'imp'],
  properties: {
    id: { type: 'string', minLength: 1 },
    imp: { type: 'array', minItems: 1, items: ref('Imp') },
    site: { type: 'object', properties: { page: string, domain: string, ref: string, publisher: { type: 'object', properties: { id: string } } } },
    app: { type: 'object', properties: { bundle: string, publisher: { type: 'object', properties: { id: string } } } },
    dooh: object,
    device: { type: 'object', properties: { ua: string, ip: string, ipv6: string, ifa: string, devicetype: integer, w: integer, h: integer } },
    user: { type: 'object', properties: { id: string, buyeruid: string, eids: { type: 'array', items: object }, ext: object } },
    regs: { type: 'object', properties: { coppa: { enum: [0, 1] }, gdpr: { enum: [0, 1] }, us_privacy: string, gpp: string, gpp_sid: { type: 'array', items: integer }, ext: object } },
    source: object,
    tmax: { type: 'integer', minimum: 0, description: 'Milliseconds the caller waits; capped by auction.maxTmaxMs, auction.defaultTmaxMs when absent' },
    test: { enum: [0, 1], description: '1 adds ext.debug (the bidder calls) to the answer' },
    cur: stringList,
    ext: {
      type: 'object',
      description: 'Options under ext.prebid (Prebid Server protocol) or ext.svc (Gavel\'s own): targeting, cache, storedrequest, aliases, bidadjustmentfactors, debug, trace...',
      properties: { prebid: object, svc: object },
    },
  },
};

const Bid: Schema = {
  type: 'object',
  required: ['id', 'impid', 'price'],
  properties: {
    id: string,
    impid: string,
    price: { type: 'number', minimum: 0 },
    adm: string,
    nurl: string,
    crid: string,
    adomain: stringList,
    dealid: string,
    w: integer,
    h: integer,
    ext: { type: 'object', description: 'ext.origbidcpm/origbidcur, and under ext.<namespace>: type, targeting (hb_* keys), meta, cache' },
  },
};

/** The answer of `POST /openrtb2/auction`: an OpenRTB BidResponse, or `{id, nbr}` when a module ended the auction. */
const BidResponse: Schema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: string,
    seatbid: { type: 'array', items: { type: 'object', required: ['seat', 'bid'], properties: { seat: string, bid: { type: 'array', items: ref('Bid') } } } },
    cur: string,
    nbr: integer,
    ext: {
      type: 'object',
      properties: {
        responsetimemillis: { type: 'object', additionalProperties: number },
        tmaxrequest: integer,
        errors: ref('ErrorsByScope'),
        warnings: ref('ErrorsByScope'),
        debug: object,
      },
    },
  },
};

/** The JSON text `GET /openrtb2/amp` answers (as text/plain: AMP parses it itself). */
const AmpResponse: Schema = {
  type: 'object',
  required: ['targeting', 'errors'],
  properties: {
    targeting: { type: 'object', additionalProperties: string, description: 'hb_* key-values of the winner and each bidder' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: ref('ErrorEntry') } },
    warnings: { type: 'object', additionalProperties: { type: 'array', items: ref('ErrorEntry') } },
    debug: object,
  },
};

const VideoResponse: Schema = {
  type: 'object',
  required: ['adPods'],
  properties: {
    adPods: {
      type: 'array',
      items: {
        type: 'object',
        required: ['podid'],
        properties: {
          podid: integer,
          targeting: { type: 'array', items: { type: 'object', additionalProperties: string } },
          errors: { type: 'object', additionalProperties: { type: 'array', items: ref('ErrorEntry') } },
        },
      },
    },
    ext: object,
  },
};

const CookieSyncRequest: Schema = {
  type: 'object',
  properties: {
    bidders: { ...stringList, description: 'The bidders to sync; every enabled bidder that syncs when absent' },
    coopSync: { type: 'boolean', description: 'Also offer bidders the page did not name' },
    limit: { type: 'integer', minimum: 0, description: 'At most this many syncs; 0 is no cap' },
    gdpr: { enum: [0, 1] },
    gdpr_consent: string,
    us_privacy: string,
    gpp: string,
    gpp_sid: string,
    filterSettings: {
      type: 'object',
      properties: Object.fromEntries(
        ['iframe', 'image', 'all'].map((type) => [type, { type: 'object', properties: { bidders: { anyOf: [{ const: '*' }, stringList] }, filter: { enum: ['include', 'exclude'] } } }]),
      ),
    },
  },
};

const CookieSyncResponse: Schema = {
  type: 'object',
  required: ['status', 'bidder_status'],
  properties: {
    status: { enum: ['ok', 'no_cookie'] },
    bidder_status: {
      type: 'array',
      items: {
        type: 'object',
        required: ['bidder', 'usersync'],
        properties: {
          bidder: string,
          no_cookie: { const: true },
          usersync: { type: 'object', required: ['url', 'type'], properties: { url: string, type: { enum: ['iframe', 'redirect'] }, supportCORS: { const: true } } },
        },
      },
    },
  },
};

/** `POST /cache`: Prebid Cache's put request. */
const CachePutRequest: Schema = {
  type: 'object',
  required: ['puts'],
  properties: {
    puts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['type', 'value'],
        properties: {
          type: { enum: ['json', 'xml'] },
          value: { description: 'Any JSON value for `json`, a string of XML for `xml`' },
          ttlseconds: { type: 'integer', minimum: 0 },
          key: string,
        },
      },
    },
  },
};

const CachePutResponse: Schema = {
  type: 'object',
  required: ['responses'],
  properties: { responses: { type: 'array', items: { type: 'object', required: ['uuid'], properties: { uuid: string } } } },
};

/** `POST /vtrack`: a Prebid Cache put body whose puts also name the bid and its bidder (Prebid Server's vtrack body). */
const VtrackRequest: Schema = {
  type: 'object',
  required: ['puts'],
  properties: {
    puts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'value', 'bidid', 'bidder'],
        properties: {
          type: { enum: ['json', 'xml'] },
          value: { description: 'The VAST (`xml`, a string) or any JSON value (`json`, stored as it is)' },
          ttlseconds: { type: 'integer', minimum: 0 },
          bidid: { type: 'string', minLength: 1, description: 'The bid the VAST is for: the `b` of its impression event' },
          bidder: { type: 'string', minLength: 1, description: 'The bidder (seat) of the bid' },
          timestamp: { type: 'integer', description: 'The auction start (epoch ms): the `ts` of its impression event' },
        },
      },
    },
  },
};

const Status: Schema = { type: 'object', required: ['status'], properties: { status: string } };

/** Every schema the document's operations refer to, by name. */
export const componentSchemas: Record<string, Schema> = {
  ErrorEntry,
  ErrorsByScope,
  Imp,
  BidRequest,
  Bid,
  BidResponse,
  AmpResponse,
  VideoResponse,
  CookieSyncRequest,
  CookieSyncResponse,
  CachePutRequest,
  CachePutResponse,
  VtrackRequest,
  Status,
};

export { ref };
