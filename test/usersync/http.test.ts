import { expect } from 'chai';
import { fetchAnswer, postJson } from '../support/gavel.js';
import { parseSetCookie, startUserSyncServer, userSyncDeps } from './support.js';

describe('user sync over HTTP (the real edge)', () => {
  let server: { url: string; close(): Promise<void> };
  before(async () => {
    // The real clock: the browser-side round trip below depends on ids staying live.
    server = await startUserSyncServer(await userSyncDeps({}, Date.now()));
  });
  after(() => server.close());

  it('GET /setuid answers 200 with one Set-Cookie carrying the id and the attributes', async () => {
    const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
    const answer = await fetchAnswer(`${server.url}/setuid?bidder=adnxs&uid=an-42&f=b`, { headers: { 'user-agent': chrome } });
    expect(answer.status).to.equal(200);
    expect(answer.text).to.equal('');
    const cookies = answer.headers.getSetCookie();
    expect(cookies).to.have.length(1);
    expect(cookies[0]).to.match(/^uids=[A-Za-z0-9_-]+=*; Path=\/; Expires=\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT; Secure; SameSite=None; HttpOnly$/);
  });

  it('the cookie /setuid writes is the one /cookie_sync and later /setuid calls read', async () => {
    const first = await fetchAnswer(`${server.url}/setuid?bidder=appnexus&uid=an-42`);
    const cookie = `uids=${parseSetCookie(first.headers.getSetCookie()[0]!).value}`;

    const sync = await postJson(`${server.url}/cookie_sync`, { bidders: ['appnexus', 'ix'] }, { cookie });
    expect(sync.status).to.equal(200);
    expect(sync.json.status).to.equal('ok');
    expect(sync.json.bidder_status.map((status: { bidder: string }) => status.bidder)).to.deep.equal(['ix']);

    const second = await fetchAnswer(`${server.url}/setuid?bidder=ix&uid=ix-9`, { headers: { cookie } });
    const both = `uids=${parseSetCookie(second.headers.getSetCookie()[0]!).value}`;
    const after = await postJson(`${server.url}/cookie_sync`, { bidders: ['appnexus', 'ix'] }, { cookie: both });
    expect(after.json.bidder_status).to.deep.equal([]);
  });

  it('f=i answers the PNG bytes as image/png', async () => {
    const response = await fetch(`${server.url}/setuid?bidder=adnxs&uid=a&f=i`);
    expect(response.headers.get('content-type')).to.equal('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.toString('hex')).to.equal('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082');
  });

  it('unknown or missing bidder is a 400 with a clear message and no cookie', async () => {
    const unknown = await fetchAnswer(`${server.url}/setuid?bidder=nosuch&uid=a`);
    expect(unknown.status).to.equal(400);
    expect(unknown.text).to.contain('The bidder name provided is not supported by Prebid Server');
    expect(unknown.headers.getSetCookie()).to.deep.equal([]);
    const missing = await fetchAnswer(`${server.url}/setuid?uid=a`);
    expect(missing.status).to.equal(400);
    expect(missing.text).to.contain('"bidder" query param is required');
  });

  it('POST /cookie_sync takes Prebid.js text/plain bodies with credentials (CORS echo)', async () => {
    const answer = await fetchAnswer(`${server.url}/cookie_sync`, {
      method: 'POST',
      body: JSON.stringify({ bidders: ['appnexus'], gdpr: 0 }),
      headers: { 'content-type': 'text/plain', origin: 'https://publisher.example' },
    });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('access-control-allow-origin')).to.equal('https://publisher.example');
    expect(answer.headers.get('access-control-allow-credentials')).to.equal('true');
    expect(answer.json).to.deep.equal({
      status: 'no_cookie',
      bidder_status: [{
        bidder: 'appnexus',
        no_cookie: true,
        usersync: { url: 'https://ib.adnxs.com/getuid?https%3A%2F%2Fgavel.example.com%2Fsetuid%3Fbidder%3Dadnxs%26gdpr%3D0%26gdpr_consent%3D%26gpp%3D%26gpp_sid%3D%26f%3Di%26uid%3D%24UID', type: 'redirect' },
      }],
    });
  });

  it('POST /cookie_sync with a body that is not JSON is a 400', async () => {
    const answer = await postJson(`${server.url}/cookie_sync`, '{"bidders": [');
    expect(answer.status).to.equal(400);
    expect(answer.text).to.match(/^Invalid request: /);
  });
});
