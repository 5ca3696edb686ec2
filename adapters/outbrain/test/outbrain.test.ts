import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { testBidderConfig } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import outbrain from '../index.js';
import { goString, rewriteNativeMarkup } from '../native-response.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Prebid Server's fixtures use the endpoint http://example.com/bid; ours follow them (test/host-config.json). */
const host = readTestHost('outbrain');

describe('outbrain adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(outbrain, fixturesDir, host)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(outbrain, {
    valid: [
      ['a publisher id', { publisher: { id: 'pub-1' } }],
      ['every param', { publisher: { id: 'p', name: 'n', domain: 'd.example' }, tagid: 't', bcat: ['IAB1'], badv: ['a.example'] }],
    ],
    invalid: [
      ['no publisher', { tagid: 't' }],
      ['a publisher without id', { publisher: { name: 'n' } }],
      ['a numeric publisher id', { publisher: { id: 1 } }],
      ['a numeric tag id', { publisher: { id: 'p' }, tagid: 5 }],
      ['bcat as text', { publisher: { id: 'p' }, bcat: 'IAB1' }],
      ['a non-object', 'pub-1'],
    ],
  });

  describe('native markup', () => {
    it('writes strings as Go does', () => {
      expect(goString('a<b>&"\\\n\t\b\f\u0001\u2028\u2029é')).to.equal('"a\\u003cb\\u003e\\u0026\\"\\\\\\n\\t\\b\\f\\u0001\\u2028\\u2029é"');
      expect(goString('\ud800')).to.equal('"\\ufffd"');
    });

    it('keeps required 0 out, an asset id of 0 in, and the link even when absent', () => {
      expect(rewriteNativeMarkup('{"assets":[{"id":0,"required":0}]}')).to.deep.equal({ adm: '{"assets":[{"id":0}],"link":{"url":""}}' });
    });

    it('refuses markup of the wrong shape', () => {
      for (const adm of ['', '[]', '{"ver":1}', '{"assets":{}}', '{"assets":[{"required":300}]}', '{"link":"x"}', '{"imptrackers":[1]}']) {
        expect(rewriteNativeMarkup(adm), adm).to.have.property('error');
      }
    });

    it('reads member names in any case and duplicates over each other, as json-iterator decodes, and writes Go\'s names', () => {
      const adm = '{"Ver":"1.1","LINK":{"Url":"https://go.example/c","ClickTrackers":["https://t.example/k"]},"Assets":[{"ID":7,"Title":{"TEXT":"Tea"}}],'
        + '"link":{"fallback":"https://f.example"},"EventTrackers":[{"Event":1,"Method":1,"URL":"https://i.example/p"}],"EXT":{"price":1.50,"n":"\\u00e9"}}';
      expect(rewriteNativeMarkup(adm)).to.deep.equal({
        adm: '{"ver":"1.1","assets":[{"id":7,"title":{"text":"Tea"}}],"link":{"url":"https://go.example/c","clicktrackers":["https://t.example/k"],'
          + '"fallback":"https://f.example"},"imptrackers":["https://i.example/p"],"ext":{"price":1.50,"n":"\\u00e9"}}',
      });
    });

    it('refuses markup in the decoder\'s words, which Prebid Server passes on', () => {
      const cases: [string, string][] = [
        ['', 'expect { or n, but found \u0000'],
        ['  [1]', 'expect { or n, but found ['],
        ['{"ver":2}', 'cannot unmarshal response.Response.Ver: expects " or n, but found 2'],
        ['{"assets":[{"title":{"text":true}}]}', 'cannot unmarshal response.Title.Text: expects " or n, but found t'],
        ['{"assets":{}}', 'cannot unmarshal response.Response.Assets: decode slice: expect [ or n, but found {'],
        ['{"assets":[7]}', 'cannot unmarshal []response.Asset: expect { or n, but found 7'],
        // json-iterator's "ReadInt8: overflow: 128" is cut at its last colon, as jsonutil cuts it.
        ['{"assets":[{"required":128}]}', 'cannot unmarshal ReadInt8: 128'],
        ['{"imptrackers":["a",3]}', 'cannot unmarshal []string: expects " or n, but found 3'],
        ['{"eventtrackers":[{"event":1.5}]}', 'cannot unmarshal response.EventTracker.Event: can not decode float as int'],
        ['{"Link":"x"}', 'cannot unmarshal response.Response.Link: expect { or n, but found "'],
      ];
      for (const [adm, error] of cases) expect(rewriteNativeMarkup(adm), adm).to.deep.equal({ error });
    });

    it('drops a bid whose native markup does not decode with code 14, as Prebid Server passes the decoder error on', () => {
      const bidder = outbrain.create!(testBidderConfig('outbrain', 'http://example.com/bid'), { logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const request = { id: 'r', imp: [{ id: 'n', native: { request: '{}' } }, { id: 'b', banner: { w: 1, h: 1 } }], site: { page: 'https://p.example/' } };
      const sent = { method: 'POST' as const, uri: 'http://example.com/bid', impIds: ['n', 'b'] };
      for (const adm of ['', '[]', '{"imptrackers":[1]}']) {
        const body = JSON.stringify({ seatbid: [{ bid: [{ id: '1', impid: 'n', price: 1, adm }, { id: '2', impid: 'b', price: 1, adm: 'x' }] }] });
        const answer = bidder.makeBids(request, sent, { status: 200, body, headers: {} });
        expect(answer.bids.map((b) => b.bid.id), adm).to.deep.equal(['2']);
        expect(answer.errors?.map((e) => e.code), adm).to.deep.equal([14]);
      }
    });
  });
});
