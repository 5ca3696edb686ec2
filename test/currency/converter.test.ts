import { expect } from 'chai';
import { ConversionNotFoundError, type BidRequest } from '../../core/api/index.js';
import { checkConfig, deepMerge, defaultConfig, loadConfig } from '../../core/config/index.js';
import { conversionFailure, CurrencyConverter, createCurrencyConverter, strictConversion, type CurrencyConverterOptions } from '../../core/currency/index.js';
import { testConfig } from '../support/gavel.js';
import { closedPortUrl, recordingLogger, startRateServer, type RateServer } from './rate-server.js';

const request = (ext?: Record<string, unknown>): BidRequest => ({ id: 'r', imp: [], ...(ext && { ext }) }) as BidRequest;

function converter(options: Partial<CurrencyConverterOptions> = {}) {
  const { logger, records } = recordingLogger();
  const instance = new CurrencyConverter({ refreshMs: 60_000, staleAfterMs: 0, timeoutMs: 1000, logger, ...options });
  return { instance, records };
}

describe('currency converter: host rates from config', () => {
  const { instance } = converter({ rates: { USD: { EUR: 0.9, GBP: 0.8 } } });
  const convert = instance.converterFor(request(), 'prebid');

  it('converts with direct, inverse and cross rates', () => {
    expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
    expect(convert(9, 'EUR', 'USD')).to.be.closeTo(10, 1e-12);
    expect(convert(9, 'EUR', 'GBP')).to.be.closeTo(8, 1e-12);
  });

  it('returns the amount itself for one currency, and undefined for an unknown pair', () => {
    expect(convert(1.23, 'USD', 'USD')).to.equal(1.23);
    expect(convert(1.23, 'SEK', 'SEK')).to.equal(1.23);
    expect(convert(1.23, 'SEK', 'USD')).to.equal(undefined);
  });

  it('hands every request without rates of its own the same converter (nothing built per request)', () => {
    expect(instance.converterFor(request(), 'prebid')).to.equal(convert);
    expect(instance.converterFor(request({ prebid: { targeting: {} } }), 'prebid')).to.equal(convert);
    expect(instance.converterFor(request({ prebid: { currency: { usepbsrates: true } } }), 'prebid')).to.equal(convert);
  });

  it('lower-case keys in the config are read as codes', () => {
    const lower = converter({ rates: { usd: { eur: 0.5 } } }).instance.converterFor(request(), 'svc');
    expect(lower(4, 'USD', 'EUR')).to.equal(2);
  });
});

describe('currency converter: rates carried by the request', () => {
  const { instance } = converter({ rates: { USD: { EUR: 0.9, GBP: 0.8 } } });

  it('request rates win over the host rates for that request only', () => {
    const convert = instance.converterFor(request({ prebid: { currency: { rates: { USD: { EUR: 0.5 } } } } }), 'prebid');
    expect(convert(10, 'USD', 'EUR')).to.equal(5);
    expect(convert(10, 'USD', 'GBP')).to.be.closeTo(8, 1e-12);
    expect(instance.converterFor(request(), 'prebid')(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
  });

  it('usepbsrates false uses only the request rates', () => {
    const convert = instance.converterFor(request({ prebid: { currency: { rates: { USD: { EUR: 0.5 } }, usepbsrates: false } } }), 'prebid');
    expect(convert(10, 'USD', 'EUR')).to.equal(5);
    expect(convert(10, 'USD', 'GBP')).to.equal(undefined);
    expect(convert(10, 'GBP', 'GBP')).to.equal(10);
  });

  it('usepbsrates false without rates leaves only same-currency bids priced', () => {
    const convert = instance.converterFor(request({ prebid: { currency: { usepbsrates: false } } }), 'prebid');
    expect(convert(10, 'USD', 'EUR')).to.equal(undefined);
    expect(convert(10, 'USD', 'USD')).to.equal(10);
  });

  it('reads the namespace the request uses', () => {
    const ext = { svc: { currency: { rates: { USD: { EUR: 0.25 } } } } };
    expect(instance.converterFor(request(ext), 'svc')(4, 'USD', 'EUR')).to.equal(1);
    expect(instance.converterFor(request(ext), 'prebid')(4, 'USD', 'EUR')).to.be.closeTo(3.6, 1e-12);
  });

  it('odd request rates never throw: bad entries are ignored, the good ones used', () => {
    for (const currency of ['EUR', 7, null, [], { rates: 'x' }, { rates: { USD: { EUR: -1, GBP: 'x' } } }, { rates: { USD: [1] } }]) {
      const convert = instance.converterFor(request({ prebid: { currency } }), 'prebid');
      expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
    }
    const mixed = instance.converterFor(request({ prebid: { currency: { rates: { USD: { EUR: 0.5, GBP: 'x' } } } } }), 'prebid');
    expect(mixed(10, 'USD', 'EUR')).to.equal(5);
  });
});

describe('currency converter: rates fetched from a currency file', () => {
  let server: RateServer;
  const file = (eur: number) => ({ dataAsOf: '2024-05-01', conversions: { USD: { EUR: eur, JPY: 150 } } });

  beforeEach(async () => {
    server = await startRateServer(file(0.9));
  });
  afterEach(async () => {
    await server.close();
  });

  it("describes itself for GET /currency/rates as Prebid Server's rate converter does: source, interval in ns, Go's time, the fetched rates", async () => {
    const before = converter({ url: server.url, refreshMs: 1_800_000, clock: { now: () => Date.UTC(2024, 4, 1, 12, 0, 30, 0) } });
    expect(before.instance.info()).to.deep.equal({ active: true, source: server.url, fetchingIntervalNs: 1_800_000_000_000, lastUpdated: '0001-01-01T00:00:00Z' });
    await before.instance.refresh();
    expect(before.instance.info()).to.deep.equal({
      active: true,
      source: server.url,
      fetchingIntervalNs: 1_800_000_000_000,
      lastUpdated: '2024-05-01T12:00:30Z',
      rates: { USD: { EUR: 0.9, JPY: 150 } },
    });
    const fraction = converter({ url: server.url, clock: { now: () => Date.UTC(2024, 4, 1, 12, 0, 30, 120) } });
    await fraction.instance.refresh();
    expect(fraction.instance.info().lastUpdated).to.equal('2024-05-01T12:00:30.12Z');
    expect(converter({ rates: { USD: { EUR: 0.9 } } }).instance.info()).to.deep.equal({ active: true, source: '', fetchingIntervalNs: 60_000_000_000, lastUpdated: '0001-01-01T00:00:00Z' });
  });

  it('fetches at start, and config rates win over fetched ones', async () => {
    const { logger } = recordingLogger();
    const settings = { ...testConfig().currency, url: server.url, rates: { USD: { JPY: 100 } } };
    const instance = await createCurrencyConverter(settings, { logger });
    try {
      const convert = instance.converterFor(request(), 'prebid');
      expect(server.fetches).to.equal(1);
      expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
      expect(convert(10, 'USD', 'JPY')).to.equal(1000);
      expect(instance.state()).to.include({ url: server.url, dataAsOf: '2024-05-01', stale: false });
    } finally {
      instance.close();
    }
  });

  it('a failed refresh keeps the last good table and is logged', async () => {
    const { instance, records } = converter({ url: server.url });
    await instance.start();
    instance.close();
    const convert = instance.converterFor(request(), 'prebid');
    expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);

    const failures = [
      { status: 500, body: 'down' },
      { status: 200, body: '{not json' },
      { status: 200, body: { dataAsOf: '2024-05-02' } },
      { status: 200, body: { conversions: { USD: { EUR: -3 } } } },
    ];
    for (const answer of failures) {
      server.answer = answer;
      expect(await instance.refresh()).to.equal(false);
      expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
    }
    expect(records.filter((record) => record.level === 'warn')).to.have.length(failures.length);

    server.answer = { status: 200, body: file(0.5) };
    expect(await instance.refresh()).to.equal(true);
    expect(convert(10, 'USD', 'EUR')).to.equal(5);
  });

  it('refreshes on its timer until closed', async () => {
    const { instance } = converter({ url: server.url, refreshMs: 20 });
    await instance.start();
    const convert = instance.converterFor(request(), 'prebid');
    server.answer = { status: 200, body: file(0.5) };
    const deadline = Date.now() + 2000;
    while (convert(10, 'USD', 'EUR') !== 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(convert(10, 'USD', 'EUR')).to.equal(5);
    instance.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    const afterClose = server.fetches;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.fetches).to.equal(afterClose);
  });

  it('stops using fetched rates once they are older than the stale limit, until a fetch succeeds', async () => {
    let now = 1_000_000;
    const { instance, records } = converter({ url: server.url, staleAfterMs: 60_000, clock: { now: () => now }, rates: { USD: { GBP: 0.8 } } });
    await instance.start();
    instance.close();
    const convert = instance.converterFor(request(), 'prebid');
    now += 59_000;
    expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);

    server.answer = { status: 500, body: 'down' };
    expect(await instance.refresh()).to.equal(false);
    now += 2_000;
    expect(instance.state().stale).to.equal(true);
    expect(convert(10, 'USD', 'EUR')).to.equal(undefined);
    expect(convert(10, 'USD', 'EUR')).to.equal(undefined);
    // Pinned config rates are the host's own choice: they do not go stale.
    expect(convert(10, 'USD', 'GBP')).to.equal(8);
    expect(convert(10, 'USD', 'USD')).to.equal(10);
    expect(records.filter((record) => record.level === 'error')).to.have.length(1);

    server.answer = { status: 200, body: file(0.5) };
    expect(await instance.refresh()).to.equal(true);
    expect(convert(10, 'USD', 'EUR')).to.equal(5);
    expect(instance.state().stale).to.equal(false);
  });

  it('an unreachable currency server at start leaves the config rates working', async () => {
    const { instance, records } = converter({ url: await closedPortUrl(), rates: { USD: { EUR: 0.9 } } });
    await instance.start();
    instance.close();
    const convert = instance.converterFor(request(), 'prebid');
    expect(convert(10, 'USD', 'EUR')).to.be.closeTo(9, 1e-12);
    expect(convert(10, 'USD', 'JPY')).to.equal(undefined);
    expect(records.some((record) => record.level === 'warn')).to.equal(true);
    expect(instance.state().fetchedAt).to.equal(undefined);
  });
});

describe('currency config', () => {
  it('has defaults and accepts a full section', () => {
    expect(defaultConfig.currency).to.deep.include({ refreshSeconds: 1800, rates: {} });
    const config = testConfig({ currency: { url: 'https://rates.example/latest.json', rates: { USD: { EUR: 0.9 } }, refreshSeconds: 60, staleAfterSeconds: 0 } });
    expect(config.currency).to.include({ url: 'https://rates.example/latest.json', refreshSeconds: 60, staleAfterSeconds: 0 });
  });

  it('takes rates from environment variables, whole or one pair at a time', () => {
    const whole = loadConfig({ env: { GAVEL_CURRENCY__RATES: '{"USD":{"EUR":0.9}}', GAVEL_CURRENCY__URL: 'https://rates.example/x.json' } });
    expect(whole.currency.rates).to.deep.equal({ USD: { EUR: 0.9 } });
    expect(whole.currency.url).to.equal('https://rates.example/x.json');
    const pair = loadConfig({ env: { GAVEL_CURRENCY__RATES__USD__EUR: '0.5' } });
    const convert = converter({ rates: pair.currency.rates }).instance.converterFor(request(), 'prebid');
    expect(convert(4, 'USD', 'EUR')).to.equal(2);
  });

  it('refuses a rate that is not positive, a key that is no code, and unknown keys', () => {
    const base = structuredClone(defaultConfig) as unknown as Record<string, unknown>;
    for (const currency of [{ rates: { USD: { EUR: 0 } } }, { rates: { DOLLAR: { EUR: 1 } } }, { refreshSeconds: 0 }, { feed: 'x' }]) {
      expect(() => checkConfig(deepMerge(base, { currency }), 'test'), JSON.stringify(currency)).to.throw(/currency/);
    }
  });
});

describe("the adapters' converter (RequestInfo.convertCurrency), with Prebid Server's ConvertCurrency errors", () => {
  const usdToEur = (amount: number, from: string, to: string) => (from.toUpperCase() === 'USD' && to.toUpperCase() === 'EUR' ? amount * 0.9 : undefined);

  it('converts what its rates price, and any currency to itself in any case', () => {
    const convert = strictConversion(usdToEur);
    expect(convert(10, 'USD', 'EUR')).to.equal(9);
    expect(convert(10, 'eur', 'EUR')).to.equal(10);
  });

  it('throws the ParseISO text for a code it cannot read, the same code on both sides included', () => {
    const convert = strictConversion(usdToEur);
    expect(() => convert(1, 'ABC', 'ABC')).to.throw('currency: tag is not a recognized currency');
    expect(() => convert(1, 'USD', 'EU')).to.throw('currency: tag is not well-formed');
  });

  it("names a pair with no rate with its codes upper-cased, or in the auction's own words when given", () => {
    expect(() => strictConversion(usdToEur)(1, 'eur', 'jpy')).to.throw(ConversionNotFoundError, "Currency conversion rate not found: 'EUR' => 'JPY'");
    const noRates = request({ prebid: { currency: { usepbsrates: false } } });
    const convert = strictConversion(() => undefined, (from, to) => conversionFailure(from, to, noRates, 'prebid'));
    expect(() => convert(1, 'EUR', 'USD')).to.throw('rates are nil');
  });
});
