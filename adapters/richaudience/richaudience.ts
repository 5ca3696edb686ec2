import {
  badInput,
  badServerResponse,
  bidResponseCurrency,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Device,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type Site,
  type TypedBid,
} from '../../core/api/index.js';
import { parsePageUrl } from './page-url.js';

const REQUEST_HEADERS = {
  'Content-Type': 'application/json;charset=utf-8',
  Accept: 'application/json',
  'X-Openrtb-Version': '2.5',
};
/**
 * The bid type Prebid Server's adapter gives a bid for an imp other than the one the call carried: not a media type,
 * passed on as it is.
 */
const UNASSIGNED_BID_TYPE = 'no bidtype assigned' as MediaType;
/** The device IP Rich Audience expects on test requests. */
const TEST_DEVICE_IP = '11.222.33.44';

/** The params Rich Audience acts on (`pid` becomes the tagid, `bidFloorCur` the floor currency, `test` test mode). */
interface RichaudienceParams {
  pid: string;
  bidFloorCur: string;
  test: boolean;
}

/** What the request carries around the imps; test mode on one imp carries over to the imps after it. */
interface Envelope {
  site?: Site;
  app?: BidRequest['app'];
  device?: Device;
  test?: number;
}

export function createRichaudienceBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const page = request.site && typeof request.site.page === 'string' && request.site.page !== '' ? parsePageUrl(request.site.page) : undefined;
      const secure = page?.scheme === 'https' ? 1 : 0;
      const device = request.device;
      if (device && !device.ip && !device.ipv6) return { requests: [], errors: [badInput('request.Device.IP is required')] };

      const envelope: Envelope = { site: request.site, app: request.app, device, test: request.test };
      if (envelope.site && page?.host && !envelope.site.domain) envelope.site = { ...envelope.site, domain: page.host };

      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      for (const imp of request.imp) {
        const params = readParams(imp);
        if (typeof params === 'string') {
          errors.push(badInput(params));
          continue;
        }
        // The keywords name the imp's own tagid, before the placement id replaces it.
        const keywords = `tagid=${imp.tagid ?? ''}`;
        if (envelope.app) envelope.app = { ...envelope.app, keywords };
        if (envelope.site) envelope.site = { ...envelope.site, keywords };

        const outgoing: Imp = { ...imp };
        if (params.pid !== '') outgoing.tagid = params.pid;
        if (params.test) {
          envelope.device = { ...envelope.device, ip: TEST_DEVICE_IP };
          envelope.test = 1;
        }
        if (params.bidFloorCur !== '') outgoing.bidfloorcur = params.bidFloorCur;
        else if (!imp.bidfloorcur) outgoing.bidfloorcur = 'USD';
        outgoing.secure = secure;

        const sizeError = missingSize(imp);
        if (sizeError) {
          errors.push(badInput(sizeError));
          continue;
        }
        requests.push({
          method: 'POST',
          uri: config.endpoint,
          body: withEnvelope(request, envelope, outgoing),
          headers: { ...REQUEST_HEADERS },
          impIds: [imp.id],
        });
      }
      return { requests, errors };
    },

    makeBids(_request: BidRequest, sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher. Run with request.debug = 1 for more info.',
      });
      if (statusResult) return statusResult;
      const sentImps = readSentImps(sent.body);
      if (typeof sentImps === 'string') return { bids: [], errors: [badServerResponse(sentImps)] };
      // Prebid Server decodes the whole answer strictly: a body it cannot decode, a bid that is not an object
      // included, fails the answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(decoded.error)] };
      const answer = decoded.value;

      const bids: TypedBid[] = [];
      for (const imp of sentImps) {
        for (const seatbid of answer.seatbid) {
          for (const bid of seatbid.bid) {
            if (bid.impid !== imp.id) {
              // Prebid Server passes such a bid on under this made-up type rather than reporting it.
              bids.push({ bid, type: UNASSIGNED_BID_TYPE });
            } else if (imp.video) {
              // Rich Audience's video bids take the player size of the imp.
              bids.push({ bid: { ...bid, w: imp.video.w, h: imp.video.h }, type: 'video' });
            } else {
              bids.push({ bid, type: 'banner' });
            }
          }
        }
      }
      return { currency: bidResponseCurrency(answer) ?? 'USD', bids };
    },
  };
}

/**
 * The request for one imp, as Prebid Server re-encodes it: the envelope (site, app, device, test) included, so their
 * unknown members and zero `omitempty` fields are left out too.
 */
function withEnvelope(request: BidRequest, envelope: Envelope, imp: Imp): BidRequest {
  const body: BidRequest = { ...request, imp: [imp] };
  for (const key of ['site', 'app', 'device', 'test'] as const) {
    if (envelope[key] !== undefined) (body as Record<string, unknown>)[key] = envelope[key];
  }
  return encodeAsOpenrtb2Request(body);
}

/** A banner needs a size (w/h or formats), a video its player size; the message is Rich Audience's. */
function missingSize(imp: Imp): string | undefined {
  const banner = imp.banner;
  if (banner && banner.w == null && banner.h == null && !(Array.isArray(banner.format) && banner.format.length > 0)) {
    return 'request.Banner.Format is required';
  }
  const video = imp.video;
  if (video && (!video.w || !video.h)) return 'request.Video.Sizes is required';
  return undefined;
}

/**
 * The imp's params as Prebid Server decodes them: field names match regardless of case, null is "not set", and a
 * value of the wrong type makes the params unreadable. Returns the error text when they cannot be read.
 */
function readParams(imp: Imp): RichaudienceParams | string {
  // `imp.ext` into `adapters.ExtImpBidder` first (its `prebid` and `ae` typed, `bidder` matched ignoring case).
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return `not found parameters ext in ImpID : ${imp.id}`;
  const bidder = ext.value.bidder;
  const invalid = `invalid parameters ext in ImpID: ${imp.id}`;
  if (!isJsonObject(bidder)) return bidder === null ? { pid: '', bidFloorCur: '', test: false } : invalid;
  const params: RichaudienceParams = { pid: '', bidFloorCur: '', test: false };
  for (const [key, value] of Object.entries(bidder)) {
    if (value === null) continue;
    const field = key.toLowerCase();
    if (field === 'pid' || field === 'supplytype' || field === 'bidfloorcur') {
      if (typeof value !== 'string') return invalid;
      if (field === 'pid') params.pid = value;
      else if (field === 'bidfloorcur') params.bidFloorCur = value;
    } else if (field === 'bidfloor') {
      if (typeof value !== 'number') return invalid;
    } else if (field === 'test') {
      if (typeof value !== 'boolean') return invalid;
      params.test = value;
    }
  }
  return params;
}

/** The imps of the request this answer is for, read back from the body that was sent. */
function readSentImps(body: unknown): Imp[] | string {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (!isJsonObject(value) || (value.imp != null && !Array.isArray(value.imp))) return 'the request sent is not an OpenRTB BidRequest';
  return Array.isArray(value.imp) ? value.imp.filter((imp): imp is Imp => isJsonObject(imp)) : [];
}
