import { expect } from 'chai';
import type { BidRequest, Warning } from '../../api/index.js';
import { fillBrowsingTopics, fillCookieDeprecation, mergeTopicsIntoUserData, parseTopicsHeader } from '../privacy-sandbox.js';
import { implicitFields } from '../implicit-fields.js';

const warning = (what: string): Warning => ({ code: 10012, message: `Invalid field in Sec-Browsing-Topics header: ${what}` });

describe('Sec-Browsing-Topics header (Prebid Server privacysandbox.ParseTopicsFromHeader)', () => {
  it('reads each field: ids in parentheses, taxonomy 1 to 10 as segtax 600 to 609, the model as segclass', () => {
    expect(parseTopicsHeader('(1 2 3);v=chrome.1:1:2, (4);v=chrome.1:10:x, ();p=P0000000000, ')).to.deep.equal({
      topics: [
        { segtax: 600, segclass: '2', segids: [1, 2, 3] },
        { segtax: 609, segclass: 'x', segids: [4] },
      ],
      warnings: [],
    });
  });

  it('trims around the parts, reads ids as Go Atoi does (a sign allowed), and takes empty parentheses with a space', () => {
    expect(parseTopicsHeader('  ( +1  007 ) ;v=chrome.1: 2 : 5 , ( );v=chrome.1:1:1').topics).to.deep.equal([
      { segtax: 601, segclass: '5', segids: [1, 7] },
      { segtax: 600, segclass: '1', segids: [] },
    ]);
  });

  it('names every field it cannot read in a debug warning (10012)', () => {
    const fields = ['(1);v=chrome.1:0:2', '(1);v=chrome.1:11:2', '(1);v=chrome.1:1:', '(1);v=chrome.1:1', '(0);v=chrome.1:1:2', '(-1);v=chrome.1:1:2', '(a);v=chrome.1:1:2', '1;v=chrome.1:1:2', '(1)', '(1);v=a:1:2;x', '()', '(1);v=chrome.1:1.5:2'];
    const { topics, warnings } = parseTopicsHeader(fields.join(','));
    expect(topics).to.deep.equal([]);
    expect(warnings).to.deep.equal(fields.map(warning));
  });

  it('keeps ten topics and names each field after them as discarded', () => {
    const fields = Array.from({ length: 12 }, (_, i) => `(${i + 1});v=chrome.1:1:2`);
    const { topics, warnings } = parseTopicsHeader(['bad', ...fields].join(', '));
    expect(topics).to.have.length(10);
    expect(warnings).to.deep.equal([warning('bad'), warning('(11);v=chrome.1:1:2 discarded due to limit reached.'), warning('(12);v=chrome.1:1:2 discarded due to limit reached.')]);
  });
});

describe('Topics merged into user.data (Prebid Server privacysandbox.UpdateUserDataWithTopics)', () => {
  const topics = [
    { segtax: 600, segclass: '2', segids: [1, 2] },
    { segtax: 600, segclass: '2', segids: [3] },
    { segtax: 601, segclass: '4', segids: [5] },
    { segtax: 602, segclass: '1', segids: [] },
  ];

  it('adds the new ids to the first entry of the domain with that segtax and segclass, the rest as new entries', () => {
    const data = [
      { name: 'ads.example', segment: [{ id: '1' }, { id: 'x' }], ext: { segtax: 600, segclass: '2' } },
      { name: 'ads.example', segment: [], ext: { segtax: 600, segclass: '2' } },
      { name: 'other.example', ext: { segtax: 601, segclass: '4' } },
    ];
    const before = structuredClone(data);
    expect(mergeTopicsIntoUserData(data, topics, 'ads.example')).to.deep.equal([
      { name: 'ads.example', segment: [{ id: '1' }, { id: 'x' }, { id: '2' }, { id: '3' }], ext: { segtax: 600, segclass: '2' } },
      { name: 'ads.example', segment: [], ext: { segtax: 600, segclass: '2' } },
      { name: 'other.example', ext: { segtax: 601, segclass: '4' } },
      { name: 'ads.example', segment: [{ id: '5' }], ext: { segtax: 601, segclass: '4' } },
    ]);
    expect(data).to.deep.equal(before);
  });

  it('leaves alone an entry whose ext does not read as a topic (no ext, a segtax of the wrong type, segtax 0)', () => {
    const data = [
      { name: 'ads.example', segment: [{ id: '1' }] },
      { name: 'ads.example', ext: { segtax: '600', segclass: '2' } },
      { name: 'ads.example', ext: { segtax: 0, segclass: '2' } },
    ];
    expect(mergeTopicsIntoUserData(data, [topics[0]!], 'ads.example')).to.deep.equal([...data, { name: 'ads.example', segment: [{ id: '1' }, { id: '2' }], ext: { segtax: 600, segclass: '2' } }]);
  });

  it('takes an entry whose ids are all there already: nothing new is added for that topic', () => {
    const data = [{ name: 'ads.example', segment: [{ id: '1' }, { id: '2' }], ext: { segtax: 600, segclass: '2' } }];
    expect(mergeTopicsIntoUserData(data, [topics[0]!], 'ads.example')).to.equal(data);
  });

  it('fills a request: a user made for the topics, none when the account names no domain or the header has no topic', () => {
    const request = { id: 'r' } as unknown as BidRequest;
    expect(fillBrowsingTopics(request, '(1);v=chrome.1:1:2, bad', 'ads.example')).to.deep.equal([warning('bad')]);
    expect(request.user).to.deep.equal({ data: [{ name: 'ads.example', segment: [{ id: '1' }], ext: { segtax: 600, segclass: '2' } }] });
    const untouched = { id: 'r' } as unknown as BidRequest;
    expect(fillBrowsingTopics(untouched, '(1);v=chrome.1:1:2', '')).to.deep.equal([]);
    expect(fillBrowsingTopics(untouched, 'bad', 'ads.example')).to.deep.equal([warning('bad')]);
    expect(untouched).to.deep.equal({ id: 'r' });
  });
});

describe('Sec-Cookie-Deprecation (Prebid Server validateOrFillCookieDeprecation)', () => {
  it('writes the label into device.ext.cdep when the request has none', () => {
    const request = { id: 'r', device: { ua: 'x' } } as unknown as BidRequest;
    expect(fillCookieDeprecation(request, 'label_1')).to.equal(undefined);
    expect(request.device).to.deep.equal({ ua: 'x', ext: { cdep: 'label_1' } });
  });

  it("keeps the request's own label, and takes none from an empty header", () => {
    const own = { id: 'r', device: { ext: { cdep: 'mine' } } } as unknown as BidRequest;
    fillCookieDeprecation(own, 'label_1');
    expect(own.device).to.deep.equal({ ext: { cdep: 'mine' } });
    const none = { id: 'r' } as unknown as BidRequest;
    fillCookieDeprecation(none, '');
    expect(none).to.deep.equal({ id: 'r' });
  });

  it('refuses a label over 100 bytes with warning 10011, and takes one of exactly 100', () => {
    const request = { id: 'r' } as unknown as BidRequest;
    expect(fillCookieDeprecation(request, 'x'.repeat(101))).to.deep.equal({ code: 10011, message: 'request.device.ext.cdep must not exceed 100 characters' });
    expect(request.device).to.equal(undefined);
    expect(fillCookieDeprecation(request, 'x'.repeat(100))).to.equal(undefined);
    expect(request.device).to.deep.equal({ ext: { cdep: 'x'.repeat(100) } });
  });
});

describe('endpoint fill-ins: the privacy sandbox headers under the account', () => {
  const run = (account: Record<string, unknown>, headers: Record<string, string>, debug: boolean) => {
    const warnings: Warning[] = [];
    const request = { id: 'r', site: { page: 'https://a.example/' }, imp: [{ id: 'i', banner: {} }] } as unknown as BidRequest;
    const context = { account: { id: 'a', ...account }, endpoint: 'auction' as const, debug, warn: (_scope: string, warning: Warning) => warnings.push(warning) };
    implicitFields({ trustProxyHeaders: false, generateTids: false }).fill(request, { headers }, 'prebid', { context, storedRequest: false });
    return { request, warnings };
  };
  const headers = { 'sec-browsing-topics': '(1);v=chrome.1:1:2, bad', 'sec-cookie-deprecation': 'label' };
  const sandbox = { privacy: { privacysandbox: { topicsdomain: 'ads.example', cookiedeprecation: { enabled: true } } } };

  it('reads both headers for an account that asks, the topics warnings for a debug auction only', () => {
    const debug = run(sandbox, headers, true);
    expect(debug.request.user).to.deep.equal({ data: [{ name: 'ads.example', segment: [{ id: '1' }], ext: { segtax: 600, segclass: '2' } }] });
    expect((debug.request.device as Record<string, unknown>).ext).to.deep.equal({ cdep: 'label' });
    expect(debug.warnings).to.deep.equal([warning('bad')]);
    expect(run(sandbox, headers, false).warnings).to.deep.equal([]);
  });

  it('reads neither for an account without the settings', () => {
    const { request, warnings } = run({}, headers, true);
    expect(request.user).to.equal(undefined);
    expect(request.device).to.equal(undefined);
    expect(warnings).to.deep.equal([]);
  });
});
