import { expect } from 'chai';
import { AccountService } from '../../accounts/index.js';
import { MemoryFetcher } from '../../stored/memory-fetcher.js';
import type { EndpointRequest } from '../../auction/endpoint-types.js';
import { eventUrl, handleEvent, parseEvent, PIXEL_PNG, withImpressionTracker, type NotificationEvent } from '../index.js';

const get = (query: Record<string, string>): EndpointRequest => ({ method: 'GET', path: '/event', headers: {}, query, secure: true, receivedAt: Date.now() });

describe('events (core/events)', () => {
  describe('event URLs', () => {
    it("are Prebid Server's: t, b, a, then bidder, f, int, ts, x in that order", () => {
      expect(eventUrl('https://gavel.example/', { type: 'win', bidId: 'b1', accountId: 'acct', bidder: 'alpha', format: 'i', integration: 'web', timestamp: 42, analytics: false }))
        .to.equal('https://gavel.example/event?t=win&b=b1&a=acct&bidder=alpha&f=i&int=web&ts=42&x=0');
    });

    it('print the bid id and account as they are and escape the optional parameters as Go\'s url.Values does, as Prebid Server\'s EventRequestToUrl', () => {
      expect(eventUrl('http://localhost', { type: 'win', bidId: 'bid:1/a', accountId: 'pub 1', bidder: 'my bidder', integration: "web(1)!*'~" }))
        .to.equal("http://localhost/event?t=win&b=bid:1/a&a=pub 1&bidder=my+bidder&int=web%281%29%21%2A%27~");
      expect(eventUrl('http://localhost', { type: 'imp', bidId: 'b', accountId: 'a' })).to.equal('http://localhost/event?t=imp&b=b&a=a');
    });
  });

  describe('impression tracking in VAST', () => {
    it('fills an empty <Impression>, else adds one after the first; leaves a VAST without one alone', () => {
      expect(withImpressionTracker('<VAST><Impression></Impression></VAST>', 'https://t/e')).to.equal('<VAST><Impression><![CDATA[https://t/e]]></Impression></VAST>');
      expect(withImpressionTracker('<VAST><Impression><![CDATA[https://dsp/i]]></Impression></VAST>', 'https://t/e'))
        .to.equal('<VAST><Impression><![CDATA[https://dsp/i]]></Impression><Impression><![CDATA[https://t/e]]></Impression></VAST>');
      expect(withImpressionTracker('<VAST><Ad/></VAST>', 'https://t/e')).to.equal(undefined);
    });
  });

  describe('parsing GET /event', () => {
    it('reads every parameter', () => {
      expect(parseEvent({ t: 'vast', vtype: 'start', b: 'bid', a: 'acct', bidder: 'alpha', ts: '17', f: 'b', x: '0', int: 'my_int-1' })).to.deep.equal({
        event: { type: 'vast', vtype: 'start', bidId: 'bid', accountId: 'acct', bidder: 'alpha', timestamp: 17, format: 'b', analytics: false, integration: 'my_int-1' },
      });
    });

    it("lists every problem in Prebid Server's words", () => {
      expect(parseEvent({ t: 'click', vtype: 'start', ts: 'soon', f: 'gif', x: '2', int: 'no spaces' })).to.deep.equal({
        errors: [
          "unknown type: 'click'",
          "parameter 'vtype' is only required for t=vast",
          "parameter 'b' is required",
          "invalid request: error parsing timestamp 'soon'",
          "unknown format: 'gif'",
          "unknown analytics: '2'",
          "integration type can only contain numbers, letters and these characters '-', '_'",
        ],
      });
      expect(parseEvent({ t: 'vast', b: 'x', vtype: 'pause' })).to.deep.equal({ errors: ["unknown vtype: 'pause'"] });
      expect(parseEvent({ t: 'win', b: 'x', int: 'a'.repeat(65) })).to.deep.equal({ errors: ['integration type length is too long'] });
    });

    it('reads ts as strconv.ParseInt does: a sign may lead, and a value past int64 is an error', () => {
      expect(parseEvent({ t: 'win', b: 'x', ts: '+17' })).to.deep.include({ event: { type: 'win', bidId: 'x', accountId: '', analytics: true, timestamp: 17 } });
      expect(parseEvent({ t: 'win', b: 'x', ts: '9223372036854775807' })).to.have.property('event');
      expect(parseEvent({ t: 'win', b: 'x', ts: '9223372036854775808' })).to.deep.equal({ errors: ["invalid request: error parsing timestamp '9223372036854775808'"] });
      expect(parseEvent({ t: 'win', b: 'x', ts: '1.5' })).to.deep.equal({ errors: ["invalid request: error parsing timestamp '1.5'"] });
    });

    it('measures int in bytes of UTF-8 and takes decimal digits only, as Go\'s len and unicode.IsDigit', () => {
      expect(parseEvent({ t: 'win', b: 'x', int: 'é'.repeat(32) })).to.have.property('event');
      expect(parseEvent({ t: 'win', b: 'x', int: 'é'.repeat(33) })).to.deep.equal({ errors: ['integration type length is too long'] });
      expect(parseEvent({ t: 'win', b: 'x', int: 'web٣' })).to.have.property('event');
      expect(parseEvent({ t: 'win', b: 'x', int: 'web²' })).to.deep.equal({ errors: ["integration type can only contain numbers, letters and these characters '-', '_'"] });
    });

    it('writes a known bidder as the host names it, and keeps an unknown one as sent', () => {
      const bidders = { get: (name: string) => (name.toLowerCase() === 'appnexus' ? ({ name: 'appnexus' } as never) : undefined) };
      expect(parseEvent({ t: 'win', b: 'x', bidder: 'AppNexus' }, bidders)).to.deep.nested.include({ 'event.bidder': 'appnexus' });
      expect(parseEvent({ t: 'win', b: 'x', bidder: 'SomeOne' }, bidders)).to.deep.nested.include({ 'event.bidder': 'SomeOne' });
    });
  });

  describe('GET /event', () => {
    const accounts = new AccountService(
      new MemoryFetcher({
        accounts: {
          on: { id: 'on', events: { enabled: true } },
          off: { id: 'off', events: { enabled: false } },
          gone: { id: 'gone', disabled: true, events: { enabled: true } },
        },
      }),
      { required: false, defaults: {} },
      { debug() {}, info() {}, warn() {}, error() {} },
    );
    const received: NotificationEvent[] = [];
    const services = { loadAccount: (id: string) => accounts.load(id), onEvent: (event: NotificationEvent) => void received.push(event), timeoutMs: 100 };
    beforeEach(() => {
      received.length = 0;
    });

    it('hands the event of an account that enables events to the consumers, and answers 204 or the pixel', async () => {
      const blank = await handleEvent(get({ t: 'win', b: 'bid-1', a: 'on', bidder: 'alpha', ts: '9' }), services);
      expect(blank.status).to.equal(204);
      const image = await handleEvent(get({ t: 'imp', b: 'bid-1', a: 'on', f: 'i' }), services);
      expect(image).to.deep.include({ status: 200, body: PIXEL_PNG });
      expect(image.headers['content-type']).to.equal('image/png');
      expect(received.map(({ request, account }) => [request.type, request.bidId, request.bidder, account.id])).to.deep.equal([
        ['win', 'bid-1', 'alpha', 'on'],
        ['imp', 'bid-1', undefined, 'on'],
      ]);
    });

    it('refuses without an account (401), for an account without events (401) or a disabled one (503)', async () => {
      const missing = await handleEvent(get({ t: 'win', b: 'bid-1' }), services);
      expect([missing.status, missing.body]).to.deep.equal([401, "Account 'a' is required query parameter and can't be empty"]);
      for (const id of ['off', 'nobody']) {
        const refused = await handleEvent(get({ t: 'win', b: 'bid-1', a: id }), services);
        expect([refused.status, refused.body]).to.deep.equal([401, `Account '${id}' doesn't support events`]);
      }
      const disabled = await handleEvent(get({ t: 'win', b: 'bid-1', a: 'gone' }), services);
      expect([disabled.status, disabled.body]).to.deep.equal([503, 'Invalid request: Prebid-server has disabled Account ID: gone, please reach out to the prebid server host.\n']);
      expect(received).to.deep.equal([]);
    });

    it('x=0 is a 204 that reaches no consumer and reads no account', async () => {
      let read = 0;
      const answer = await handleEvent(get({ t: 'win', b: 'bid-1', a: 'on', x: '0' }), { ...services, loadAccount: (id) => (read++, accounts.load(id)) });
      expect(answer.status).to.equal(204);
      expect(read).to.equal(0);
      expect(received).to.deep.equal([]);
    });

    it('a malformed event is a 400 listing its problems; an account backend that hangs is a 504 within the limit', async () => {
      const malformed = await handleEvent(get({ t: 'nope', a: 'on' }), services);
      expect([malformed.status, malformed.body]).to.deep.equal([400, "invalid request: unknown type: 'nope'\ninvalid request: parameter 'b' is required\n"]);
      const started = Date.now();
      const slow = await handleEvent(get({ t: 'win', b: 'x', a: 'on' }), { ...services, timeoutMs: 30, loadAccount: () => new Promise(() => undefined) });
      expect(slow.status).to.equal(504);
      expect(Date.now() - started).to.be.below(500);
    });
  });
});
