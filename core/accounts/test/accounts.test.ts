import { setFlagsFromString } from 'node:v8';
import { expect } from 'chai';
import { ErrorCode, type AccountSettings, type BidRequest } from '../../api/index.js';
import { StoredFetchError } from '../../stored/fetcher.js';
import { CachingFetcher } from '../../stored/caching-fetcher.js';
import { MemoryFetcher } from '../../stored/memory-fetcher.js';
import { accountIdOf, decodedAccountIdOf } from '../account-id.js';
import { AccountService, type AccountOutcome, type AccountServiceSettings } from '../account-service.js';
import { applyAccountDefaults } from '../request-defaults.js';
import { unpackDsaDefault } from '../dsa-default.js';
import { loadConfig } from '../../config/index.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function service(accounts: Record<string, unknown>, settings: Partial<AccountServiceSettings> = {}): AccountService {
  return new AccountService(new MemoryFetcher({ accounts }), { required: false, defaults: { debug_allow: true }, ...settings }, quiet);
}

async function load(accounts: AccountService, id: string): Promise<AccountOutcome> {
  return accounts.load(id);
}

function accountOf(outcome: AccountOutcome): AccountSettings {
  if ('refusal' in outcome) throw new Error(`refused: ${outcome.refusal.message}`);
  return outcome.account;
}

describe('account id of a request (Prebid Server order)', () => {
  const request = (parts: Record<string, unknown>) => ({ id: 'r', imp: [], ...parts }) as unknown as BidRequest;

  it('reads site, app or dooh publisher id; app first; none is the empty id', () => {
    expect(accountIdOf(request({ site: { publisher: { id: 'pub-1' } } }), 'prebid')).to.deep.equal({ id: 'pub-1' });
    expect(accountIdOf(request({ dooh: { publisher: { id: 'screen-9' } } }), 'prebid')).to.deep.equal({ id: 'screen-9' });
    expect(accountIdOf(request({ app: { publisher: { id: 'app-pub' } }, site: { publisher: { id: 'site-pub' } } }), 'prebid')).to.deep.equal({ id: 'app-pub' });
    expect(accountIdOf(request({ site: { page: 'x' } }), 'prebid')).to.deep.equal({ id: '' });
  });

  it('takes ext.<ns>.parentAccount over the publisher id', () => {
    const parented = request({ site: { publisher: { id: 'child', ext: { prebid: { parentAccount: 'network' } } } } });
    expect(accountIdOf(parented, 'prebid')).to.deep.equal({ id: 'network' });
    const svc = request({ app: { publisher: { id: 'child', ext: { svc: { parentAccount: 'network-svc' } } } } });
    expect(accountIdOf(svc, 'svc')).to.deep.equal({ id: 'network-svc' });
  });

  it('stops at the first place present, even empty, and names a value that is not a string', () => {
    expect(accountIdOf(request({ app: { publisher: { id: '' } }, site: { publisher: { id: 'site-pub' } } }), 'prebid')).to.deep.equal({ id: '' });
    expect(accountIdOf(request({ site: { publisher: { id: 42 } } }), 'prebid')).to.deep.equal({ error: 'site.publisher.id must be a string' });
    expect(accountIdOf(request({ site: { publisher: { ext: { prebid: { parentAccount: true } } } } }), 'prebid')).to.deep.equal({
      error: 'site.publisher.ext.prebid.parentAccount must be a string',
    });
  });
});

describe('account id of an AMP or video request (Prebid Server getAccountID)', () => {
  const request = (parts: Record<string, unknown>) => ({ id: 'r', imp: [], ...parts }) as unknown as BidRequest;

  it('takes a non-empty parentAccount (matched ignoring case), else a non-empty publisher id, else none', () => {
    const site = (publisher: unknown) => request({ site: { publisher } });
    expect(decodedAccountIdOf(site({ id: 'child', ext: { prebid: { parentAccount: '' } } }), 'prebid', 'amp')).to.deep.equal({ id: 'child' });
    expect(decodedAccountIdOf(site({ id: 'child', ext: { Prebid: { parentaccount: 'net' } } }), 'prebid', 'amp')).to.deep.equal({ id: 'net' });
    expect(decodedAccountIdOf(site({ id: 'child', ext: { prebid: { parentAccount: 5 } } }), 'prebid', 'amp')).to.deep.equal({ id: 'child' });
    expect(decodedAccountIdOf(site({ id: '' }), 'prebid', 'amp')).to.deep.equal({ id: '' });
  });

  it('reads site only for AMP; app when present, else site, for video', () => {
    const both = request({ app: { publisher: { id: 'app-pub' } }, site: { publisher: { id: 'site-pub' } } });
    expect(decodedAccountIdOf(both, 'prebid', 'amp')).to.deep.equal({ id: 'site-pub' });
    expect(decodedAccountIdOf(both, 'prebid', 'video')).to.deep.equal({ id: 'app-pub' });
    expect(decodedAccountIdOf(request({ app: {}, site: { publisher: { id: 'site-pub' } } }), 'prebid', 'video')).to.deep.equal({ id: '' });
    expect(decodedAccountIdOf(request({ dooh: { publisher: { id: 'd' } } }), 'prebid', 'video')).to.deep.equal({ id: '' });
  });
});

describe('AccountService', () => {
  it('runs a request naming no account under the id unknown, on the defaults when no account unknown is stored', async () => {
    expect(accountOf(await load(service({}), ''))).to.deep.equal({ id: 'unknown', debug_allow: true });
    expect(accountOf(await load(service({ unknown: { price_granularity: 'dense' } }), ''))).to.deep.equal({ id: 'unknown', debug_allow: true, price_granularity: 'dense' });
    const disabled = await load(service({}, { defaults: { disabled: true } }), '');
    expect(disabled).to.deep.include({
      refusal: { status: 503, code: ErrorCode.AccountDisabled, message: 'Prebid-server has disabled Account ID: unknown, please reach out to the prebid server host.' },
    });
  });

  it('refuses a request naming no account with a 400 when the host requires one, naming the field to set', () => {
    const outcome = service({}, { required: true }).load('') as AccountOutcome;
    expect(outcome).to.have.property('refusal');
    const { refusal } = outcome as { refusal: { status: number; code: string; message: string } };
    expect(refusal.status).to.equal(400);
    expect(refusal.code).to.equal(ErrorCode.AccountRequired);
    expect(refusal.message).to.contain('site.publisher.id');
    expect(service({ unknown: {} }, { required: true }).load('unknown')).to.deep.equal(outcome);
  });

  it('gives every account made from the defaults one hidden class, so the sites that read accounts stay monomorphic', async () => {
    setFlagsFromString('--allow-natives-syntax');
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    const accounts = service({}, { defaults: { debug_allow: true, cache_ttl: { banner: 300 }, targeting_prefix: 'hb' } });
    const made: AccountSettings[] = [];
    for (let i = 0; i < 5000; i++) made.push(accountOf(await load(accounts, `pub-${i % 7}`)));
    expect(made.every((account) => sameMap(account, made[0]!))).to.equal(true);
  });

  it('runs an id no backend knows on the defaults under that id (even when accounts are required)', async () => {
    expect(accountOf(await load(service({}, { required: true }), 'who'))).to.deep.equal({ id: 'who', debug_allow: true });
  });

  it('names a disabled account by the id asked for, not the id its document holds', async () => {
    const outcome = await load(service({ pub: { id: 'other', disabled: true } }), 'pub');
    expect(outcome).to.deep.include({
      refusal: { status: 503, code: ErrorCode.AccountDisabled, message: 'Prebid-server has disabled Account ID: pub, please reach out to the prebid server host.' },
    });
  });

  it('refuses an unknown id when accounts are required and the defaults are disabled', async () => {
    const outcome = await load(service({}, { required: true, defaults: { disabled: true } }), 'who');
    expect(outcome).to.deep.include({ refusal: { status: 400, code: ErrorCode.AccountRequired, message: 'Prebid-server could not verify the Account ID. Please reach out to the prebid server host.' } });
  });

  it('merges the stored account over the defaults, section by section, and fills its id', async () => {
    const accounts = service(
      { pub: { price_granularity: 'dense', gdpr: { eea_countries: ['POL'] }, cache_ttl: { video: 600 } } },
      { defaults: { debug_allow: true, gdpr: { enabled: true, eea_countries: ['FRA'] }, cache_ttl: { banner: 300 } } },
    );
    expect(accountOf(await load(accounts, 'pub'))).to.deep.equal({
      id: 'pub',
      debug_allow: true,
      price_granularity: 'dense',
      gdpr: { enabled: true, eea_countries: ['POL'] },
      cache_ttl: { banner: 300, video: 600 },
    });
  });

  it('takes a member set to null as removed by the merge, not as malformed', async () => {
    const accounts = service({ pub: { disabled: null, debug_allow: null, cookie_sync: { default_limit: null, max_limit: 4 } } }, { defaults: { debug_allow: true, disabled: false } });
    expect(accountOf(await load(accounts, 'pub'))).to.deep.equal({ id: 'pub', cookie_sync: { max_limit: 4 } });
  });

  it('keeps keys it does not know, as Prebid Server ignores them', async () => {
    expect(accountOf(await load(service({ pub: { auction: { 'price-granularity': 'low' } } }), 'pub')).auction).to.deep.equal({ 'price-granularity': 'low' });
  });

  it('refuses a disabled account with a 503', async () => {
    const outcome = await load(service({ off: { disabled: true } }), 'off');
    expect(outcome).to.deep.equal({
      refusal: { status: 503, code: ErrorCode.AccountDisabled, message: 'Prebid-server has disabled Account ID: off, please reach out to the prebid server host.' },
    });
  });

  it("refuses a malformed account with a 503 in Prebid Server's words, never a 500, and logs the bad field for the host", async () => {
    for (const document of [{ disabled: 'invalid type' }, 'not an object', { cache_ttl: { banner: -1 } }, { privacy: { allowactivities: { fetchBids: { default: 'yes' } } } }]) {
      const outcome = await load(service({ bad: document }), 'bad');
      expect(outcome, JSON.stringify(document)).to.have.property('refusal');
      const { refusal } = outcome as { refusal: { status: number; code: string; message: string } };
      expect(refusal.status).to.equal(503);
      expect(refusal.code).to.equal(ErrorCode.AccountMalformed);
      expect(refusal.message).to.equal('The prebid-server account config for account id "bad" is malformed. Please reach out to the prebid server host.');
    }
    const logged: Array<Record<string, unknown>> = [];
    const logging = { ...quiet, error: (fields: Record<string, unknown>) => void logged.push(fields) };
    await load(new AccountService(new MemoryFetcher({ accounts: { bad: { disabled: 'invalid type' } } }), { required: false, defaults: {} }, logging), 'bad');
    expect(logged).to.deep.equal([{ account: 'bad', reason: 'disabled must be boolean' }]);
  });

  it('answers a 503 when the backend fails, and never caches the failure', async () => {
    let fail = true;
    const fetcher = new MemoryFetcher({ accounts: { pub: {} } });
    const failing = Object.assign(Object.create(fetcher) as MemoryFetcher, {
      fetchAccount: async (id: string) => {
        if (fail) throw new StoredFetchError('down');
        return fetcher.fetchAccount(id);
      },
    });
    const accounts = new AccountService(failing, { required: false, defaults: {} }, quiet);
    expect(await load(accounts, 'pub')).to.deep.include({ refusal: { status: 503, code: ErrorCode.StoredFetchFailed, message: 'account "pub" cannot be read now: the stored-data backend failed; try again' } });
    fail = false;
    expect(accountOf(await load(accounts, 'pub')).id).to.equal('pub');
  });

  it('checks and merges a cached document once: the same settings object while the cache holds it', async () => {
    const accounts = service({ pub: { price_granularity: 'low' } });
    const first = accountOf(await load(accounts, 'pub'));
    expect(accountOf(await load(accounts, 'pub'))).to.equal(first);
  });

  it('answers without a promise once the stored-data cache holds the account, or remembers it missing', async () => {
    const cache = new CachingFetcher(new MemoryFetcher({ accounts: { pub: { price_granularity: 'low' } } }), 60_000, 100);
    const accounts = new AccountService(cache, { required: false, defaults: {} }, quiet);
    const first = await accounts.load('pub');
    const again = accounts.load('pub');
    expect(again).not.to.be.instanceOf(Promise);
    expect(again).to.equal(first);
    await accounts.load('nobody');
    expect(accounts.load('nobody')).to.deep.equal({ account: { id: 'nobody' } });
  });

  it("reads bid_validations as validations, and puts an account's mask bits out of range back to Prebid Server's", async () => {
    const account = accountOf(
      await load(service({ pub: { bid_validations: { secure_markup: 'enforce' }, privacy: { ipv4: { anon_keep_bits: 40 }, ipv6: { anon_keep_bits: 64 } } } }), 'pub'),
    );
    expect(account.validations).to.deep.equal({ secure_markup: 'enforce' });
    expect(account.privacy).to.deep.equal({ ipv4: { anon_keep_bits: 24 }, ipv6: { anon_keep_bits: 64 } });
  });
});

describe("an account's request defaults", () => {
  const base = (): BidRequest => ({ id: 'r', imp: [], ext: { prebid: { targeting: {} } } }) as unknown as BidRequest;

  it('gives a request that asks for targeting without a granularity the account\'s', () => {
    const request = base();
    applyAccountDefaults(request, 'prebid', { id: 'a', price_granularity: 'dense' });
    expect(request.ext).to.deep.equal({ prebid: { targeting: { pricegranularity: 'dense' } } });
  });

  it("keeps the request's own granularity and targeting options, under which the account's lie", () => {
    const request = { id: 'r', imp: [], ext: { prebid: { targeting: { pricegranularity: 'low', includebidderkeys: false } } } } as unknown as BidRequest;
    applyAccountDefaults(request, 'prebid', { id: 'a', price_granularity: 'dense', targeting: { includebidderkeys: true, includeformat: true } });
    expect(request.ext).to.deep.equal({ prebid: { targeting: { pricegranularity: 'low', includebidderkeys: false, includeformat: true } } });
  });

  it('does not ask for targeting on behalf of a request that does not', () => {
    const request = { id: 'r', imp: [] } as unknown as BidRequest;
    applyAccountDefaults(request, 'svc', { id: 'a', price_granularity: 'dense', targeting: { includeformat: true } });
    expect(request).to.deep.equal({ id: 'r', imp: [] });
  });

  it("merges default bid adjustment factors under the request's, and leaves the account's rules out of the request", () => {
    const request = {
      id: 'r',
      imp: [],
      ext: { svc: { bidadjustmentfactors: { alpha: 0.9 }, bidadjustments: { mediatype: { banner: { alpha: { '*': [{ adjtype: 'multiplier', value: 2 }] } } } } } },
    } as unknown as BidRequest;
    applyAccountDefaults(request, 'svc', {
      id: 'a',
      bidadjustmentfactors: { alpha: 0.5, beta: 0.8 },
      bidadjustments: { mediatype: { banner: { alpha: { '*': [{ adjtype: 'cpm', value: 1 }] }, beta: { '*': [{ adjtype: 'multiplier', value: 3 }] } } } },
    });
    expect(request.ext!.svc).to.deep.equal({
      bidadjustmentfactors: { alpha: 0.9, beta: 0.8 },
      bidadjustments: { mediatype: { banner: { alpha: { '*': [{ adjtype: 'multiplier', value: 2 }] } } } },
    });
  });

  it('leaves a request alone when the account has no defaults for it', () => {
    const request = base();
    const before = JSON.stringify(request);
    applyAccountDefaults(request, 'prebid', { id: 'a', debug_allow: true, gdpr: { enabled: true } });
    expect(JSON.stringify(request)).to.equal(before);
  });
});

describe('account DSA default (Prebid Server UnpackDSADefault)', () => {
  const dsaAccount = (text: string) => ({ privacy: { dsa: { default: text } } });

  it('refuses a stored account whose DSA default does not unpack, naming its DSA config', async () => {
    for (const text of ['{"dsarequired": "2"}', '[]', '{"transparency": {}}', '{"pubrender": 300}', 'nope']) {
      const outcome = await load(service({ pub: dsaAccount(text) }), 'pub');
      expect(outcome, text).to.deep.include({
        refusal: {
          status: 503,
          code: ErrorCode.AccountMalformed,
          message: 'The prebid-server account config DSA for account id "pub" is malformed. Please reach out to the prebid server host.',
        },
      });
    }
  });

  it('loads an account whose DSA default is an object, null or empty', async () => {
    for (const text of ['{"dsarequired": 2}', 'null', '', '{}']) expect(accountOf(await load(service({ pub: dsaAccount(text) }), 'pub')).privacy, text).to.exist;
  });

  it('unpacks members ignoring case, keeping only those of the DSA object', () => {
    expect(unpackDsaDefault('{"DSARequired": 3, "PubRender": 0, "other": 1, "Transparency": [{"Domain": "a.example", "DSAParams": [1], "x": 2}, null]}')).to.deep.equal({
      value: { dsarequired: 3, pubrender: 0, transparency: [{ domain: 'a.example', dsaparams: [1] }, {}] },
    });
    expect(unpackDsaDefault('null')).to.deep.equal({ value: undefined });
  });

  it('does not boot with host defaults whose DSA default does not unpack', () => {
    const overrides = { accounts: { defaults: { privacy: { dsa: { default: '{"dsarequired": true}' } } } } };
    expect(() => loadConfig({ env: {}, overrides })).to.throw(/accounts\.defaults\.privacy\.dsa\.default/).with.property('code', ErrorCode.ConfigInvalid);
  });
});
