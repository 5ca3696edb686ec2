/**
 * User sync of bidders declared in config on the generic `ortb` adapter (`bidders.<name>.userSync`): /cookie_sync
 * offers their sync URL with Prebid Server's (or Prebid Server Java's) macros filled, /setuid stores their id under
 * their own key, and the next auction sends it to them, and only to them, as `user.buyeruid`.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../core/api/index.js';
import { buildBidderCatalog } from '../../core/bidders/catalog.js';
import { loadConfig } from '../../core/config/index.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { bannerRequest, getJson, postJson, silentLogger, startGavel, testConfig, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

describe('user sync of config-declared bidders', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    bidder = await startMockBidder();
    gavel = await startGavel({
      server: { externalUrl: 'https://gavel.example' },
      bidders: {
        alpha: {
          adapter: 'ortb',
          endpoint: `${bidder.url}/rtb?name=alpha`,
          userSync: { redirect: { url: 'https://sync.alpha.example/px?gdpr={{.GDPR}}&consent={{.GDPRConsent}}&r={{.RedirectURL}}', userMacro: '$UID' } },
        },
        gamma: {
          adapter: 'ortb',
          endpoint: `${bidder.url}/rtb?name=gamma`,
          userSync: { key: 'gammakey', iframe: { url: 'https://sync.gamma.example/frame?us={{us_privacy}}&redir={{redirect_url}}&other={{not_a_macro}}', userMacro: '[UID]' } },
        },
        beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta` },
      },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  function statusOf(json: { bidder_status: Array<{ bidder: string; usersync?: { url: string; type: string } }> }, name: string) {
    return json.bidder_status.find((entry) => entry.bidder === name);
  }

  it('/cookie_sync fills the Prebid Server macros and points the redirect at /setuid under the bidder’s own name', async () => {
    const { status, json } = await postJson(`${gavel.url}/cookie_sync`, { bidders: ['alpha'], gdpr: 0, gdpr_consent: 'CONSENT' });
    expect(status).to.equal(200);
    const sync = statusOf(json, 'alpha')!.usersync!;
    expect(sync.type).to.equal('redirect');
    const url = new URL(sync.url);
    expect(url.origin + url.pathname).to.equal('https://sync.alpha.example/px');
    // GDPR off here: the consent rules for syncs are test/privacy/sync-consent.test.ts's subject.
    expect(url.searchParams.get('gdpr')).to.equal('0');
    expect(url.searchParams.get('consent')).to.equal('CONSENT');
    expect(url.searchParams.get('r')).to.equal('https://gavel.example/setuid?bidder=alpha&gdpr=0&gdpr_consent=CONSENT&gpp=&gpp_sid=&f=i&uid=$UID');
  });

  it('/cookie_sync fills Prebid Server Java’s macros too (an unknown one empty), and a configured key names the cookie entry', async () => {
    const { json } = await postJson(`${gavel.url}/cookie_sync`, { bidders: ['gamma'], us_privacy: '1YNN' });
    const sync = statusOf(json, 'gamma')!.usersync!;
    expect(sync.type).to.equal('iframe');
    const url = new URL(sync.url);
    expect(url.searchParams.get('us')).to.equal('1YNN');
    expect(url.searchParams.get('other'), 'a macro Gavel does not know').to.equal('');
    expect(url.searchParams.get('redir')).to.match(/^https:\/\/gavel\.example\/setuid\?bidder=gammakey&.*&f=b&uid=\[UID\]$/);
  });

  it('an ortb bidder without userSync still has no sync', async () => {
    const { json } = await postJson(`${gavel.url}/cookie_sync`, { bidders: ['beta'] });
    expect(statusOf(json, 'beta')?.usersync).to.equal(undefined);
    const setuid = await getJson(`${gavel.url}/setuid?bidder=beta&uid=x&f=i`);
    expect(setuid.status).to.equal(400);
  });

  it('/setuid?bidder=alpha stores the id, and the next auction sends it to alpha alone as user.buyeruid', async () => {
    const setuid = await getJson(`${gavel.url}/setuid?bidder=alpha&uid=alpha-user-9&f=i`);
    expect(setuid.status, setuid.text).to.equal(200);
    const setGammaByKey = await getJson(`${gavel.url}/setuid?bidder=gammakey&uid=gamma-user-3&f=b`, { cookie: setuid.headers.get('set-cookie')!.split(';')[0]! });
    expect(setGammaByKey.status, setGammaByKey.text).to.equal(200);
    const cookie = setGammaByKey.headers.get('set-cookie')!.split(';')[0]!;

    bidder.received.length = 0;
    const auction = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {}, gamma: {} }), { cookie });
    expect(auction.status, auction.text).to.equal(200);
    const buyeruidOf = (name: string) => (bidder.received.find((call) => call.url.includes(`name=${name}`))!.body.user as { buyeruid?: string } | undefined)?.buyeruid;
    expect(buyeruidOf('alpha')).to.equal('alpha-user-9');
    expect(buyeruidOf('gamma')).to.equal('gamma-user-3');
    expect(buyeruidOf('beta')).to.equal(undefined);
  });
});

describe('bidders.<name>.userSync at boot', () => {
  it('a userSync with neither iframe nor redirect stops the boot naming the bidder', async () => {
    const config = testConfig({ bidders: { alpha: { adapter: 'ortb', endpoint: 'http://127.0.0.1:9/rtb', userSync: { key: 'alpha' } } } });
    const plugins = await discoverPlugins();
    expect(() => buildBidderCatalog(config, plugins, silentLogger)).to.throw('bidders.alpha.userSync needs an "iframe" or a "redirect"')
      .with.property('code', ErrorCode.BidderConfigInvalid);
  });

  it('a sync URL that is not http(s) is a config error naming the field', () => {
    const overrides = { bidders: { alpha: { adapter: 'ortb', endpoint: 'http://127.0.0.1:9/rtb', userSync: { redirect: { url: 'javascript:alert(1)' } } } } };
    expect(() => loadConfig({ overrides, env: {} })).to.throw('bidders.alpha.userSync.redirect.url').with.property('code', ErrorCode.ConfigInvalid);
  });
});
