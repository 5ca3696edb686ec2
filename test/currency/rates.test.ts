import { expect } from 'chai';
import { RateTable, currencyCode, readCurrencyFile, readRateMap } from '../../core/currency/index.js';

describe('currency rate table', () => {
  const table = new RateTable({
    USD: { EUR: 0.9, GBP: 0.8, JPY: 150 },
    EUR: { CHF: 0.95 },
  });

  it('prices a currency to itself at 1, even one the table does not know', () => {
    expect(table.rate('USD', 'USD')).to.equal(1);
    expect(table.rate('SEK', 'SEK')).to.equal(1);
  });

  it('uses a direct rate', () => {
    expect(table.rate('USD', 'EUR')).to.equal(0.9);
    expect(table.rate('EUR', 'CHF')).to.equal(0.95);
  });

  it('inverts the opposite rate when no direct one exists', () => {
    expect(table.rate('EUR', 'USD')).to.be.closeTo(1 / 0.9, 1e-12);
    expect(table.rate('JPY', 'USD')).to.be.closeTo(1 / 150, 1e-12);
  });

  it('prefers a direct rate over the inverse of the opposite one', () => {
    const both = new RateTable({ USD: { EUR: 0.9 }, EUR: { USD: 1.2 } });
    expect(both.rate('EUR', 'USD')).to.equal(1.2);
    expect(both.rate('USD', 'EUR')).to.equal(0.9);
  });

  it('crosses through a base quoted against both when neither pair is quoted (TO / FROM, as Prebid Server)', () => {
    // USD quotes both EUR and GBP
    expect(table.rate('EUR', 'GBP')).to.be.closeTo(0.8 / 0.9, 1e-12);
    expect(table.rate('JPY', 'EUR')).to.be.closeTo(0.9 / 150, 1e-12);
  });

  it("does not chain a pair's rates through a base that quotes only one of them (Prebid Server's GetRate does not)", () => {
    // CHF is quoted by EUR, USD by nobody: no base quotes both, though EUR -> CHF and USD -> EUR exist
    expect(table.rate('CHF', 'USD')).to.equal(undefined);
    const chained = new RateTable({ GBP: { USD: 1.25 }, USD: { EUR: 0.9 } });
    expect(chained.rate('GBP', 'EUR')).to.equal(undefined);
    expect(chained.rate('GBP', 'USD')).to.equal(1.25);
  });

  it('gives the same cross rate when asked again (remembered, not recomputed differently)', () => {
    const first = table.rate('GBP', 'JPY');
    expect(first).to.be.closeTo((1 / 0.8) * 150, 1e-9);
    expect(table.rate('GBP', 'JPY')).to.equal(first);
  });

  it('answers undefined for a currency it does not know or a pair no single base connects', () => {
    expect(table.rate('USD', 'SEK')).to.equal(undefined);
    expect(table.rate('SEK', 'USD')).to.equal(undefined);
    const islands = new RateTable({ USD: { EUR: 0.9 }, AUD: { NZD: 1.1 } });
    expect(islands.rate('EUR', 'NZD')).to.equal(undefined);
    // CHF -> GBP needs two hops (CHF -> EUR -> USD -> GBP): only one base is crossed
    expect(table.rate('CHF', 'GBP')).to.equal(undefined);
  });

  it('reads codes case-insensitively and refuses text that is no currency code', () => {
    expect(table.rate('usd', 'eur')).to.equal(0.9);
    expect(table.rate('usd', 'USD')).to.equal(1);
    expect(table.rate('US', 'EUR')).to.equal(undefined);
    expect(table.rate(42 as unknown as string, 'EUR')).to.equal(undefined);
    expect(currencyCode('eur')).to.equal('EUR');
    expect(currencyCode('EURO')).to.equal(undefined);
  });

  it('an empty table prices only identities', () => {
    const empty = new RateTable();
    expect(empty.isEmpty).to.equal(true);
    expect(empty.rate('USD', 'EUR')).to.equal(undefined);
    expect(empty.rate('EUR', 'EUR')).to.equal(1);
  });
});

describe('reading rate maps and currency files', () => {
  it('keeps the good entries of a map and names the bad ones', () => {
    const { rates, problems } = readRateMap({ usd: { eur: 0.9, GBP: -1, JPY: 'x' }, DOLLARS: { EUR: 1 }, CHF: 3 });
    expect(rates).to.deep.equal({ USD: { EUR: 0.9 } });
    expect(problems).to.have.length(4);
    expect(problems.join('\n')).to.contain('usd.GBP').and.contain('DOLLARS').and.contain('CHF');
  });

  it("keeps a request's codes as written: a lower-case code prices no pair directly, only as a base both are quoted against (Prebid Server)", () => {
    const { rates } = readRateMap({ usd: { MXN: 2, EUR: 0.5 }, EUR: { jpy: 160 } }, 'rates', true);
    expect(rates).to.deep.equal({ usd: { MXN: 2, EUR: 0.5 }, EUR: { jpy: 160 } });
    const table = new RateTable(rates);
    expect(table.rate('USD', 'MXN')).to.equal(undefined);
    expect(table.rate('EUR', 'JPY')).to.equal(undefined);
    expect(table.rate('EUR', 'MXN')).to.equal(4);
  });

  it('reads the Prebid currency file format', () => {
    const { file, problems } = readCurrencyFile({ dataAsOf: '2024-05-01', conversions: { USD: { EUR: 0.93 }, EUR: { USD: 1.07 } } });
    expect(problems).to.deep.equal([]);
    expect(file).to.deep.equal({ dataAsOf: '2024-05-01', conversions: { USD: { EUR: 0.93 }, EUR: { USD: 1.07 } } });
  });

  it('a body without conversions is a problem, not an exception', () => {
    for (const body of [null, 'text', [], { rates: {} }, { conversions: [] }]) {
      const { file, problems } = readCurrencyFile(body);
      expect(file.conversions).to.deep.equal({});
      expect(problems).to.have.length(1);
    }
  });
});
