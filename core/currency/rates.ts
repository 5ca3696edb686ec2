/**
 * Currency rates as Prebid Server publishes them: `{ "<FROM>": { "<TO>": rate } }`, where one unit of FROM is
 * worth `rate` units of TO. The currency file wraps that map: `{"dataAsOf": "...", "conversions": {...}}`.
 */
export type RateMap = Record<string, Record<string, number>>;
import { isJsonObject } from '../api/index.js';

/** The contents of a Prebid currency file, once read. */
export interface CurrencyFile {
  dataAsOf?: string;
  conversions: RateMap;
}

const CURRENCY_CODE = /^[A-Z]{3}$/;

/**
 * Cross rates are looked for through these first: the currencies the Prebid file is published from, so the
 * usual path is one well-quoted pair on each side.
 */
const PREFERRED_BASES = ['USD', 'EUR', 'GBP'];


/** An ISO 4217 code in upper case, or undefined when the text cannot be one. */
export function currencyCode(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const code = text.toUpperCase();
  return CURRENCY_CODE.test(code) ? code : undefined;
}

function usableRate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** A code as written, when it has the form of one (three letters, any case). */
function codeAsWritten(text: string): string | undefined {
  return /^[A-Za-z]{3}$/.test(text) ? text : undefined;
}

/**
 * Reads a rate map, keeping every well-formed entry and naming the others: one bad entry in a feed or a request
 * must not cost the good ones. Codes are upper-cased, unless `asWritten`: a request's own rates are kept as Prebid
 * Server keeps them, so a lower-case code there is never matched directly (it looks rates up by upper-case codes),
 * only as a currency two others are both quoted against.
 */
export function readRateMap(value: unknown, where = 'rates', asWritten = false): { rates: RateMap; problems: string[] } {
  const readCode = asWritten ? codeAsWritten : currencyCode;
  const rates: RateMap = {};
  const problems: string[] = [];
  if (!isJsonObject(value)) return { rates, problems: [`${where} must be an object of objects`] };
  for (const [fromText, targets] of Object.entries(value)) {
    const from = readCode(fromText);
    if (!from || !isJsonObject(targets)) {
      problems.push(`${where}.${fromText}: not a currency code with an object of rates`);
      continue;
    }
    for (const [toText, rate] of Object.entries(targets)) {
      const to = readCode(toText);
      if (!to || !usableRate(rate)) {
        problems.push(`${where}.${fromText}.${toText}: not a currency code with a positive rate`);
        continue;
      }
      (rates[from] ??= {})[to] = rate;
    }
  }
  return { rates, problems };
}

/** Reads a Prebid currency file body (already JSON-parsed). */
export function readCurrencyFile(body: unknown): { file: CurrencyFile; problems: string[] } {
  if (!isJsonObject(body) || !isJsonObject(body.conversions)) {
    return { file: { conversions: {} }, problems: ['the currency file has no "conversions" object'] };
  }
  const { rates, problems } = readRateMap(body.conversions, 'conversions');
  const dataAsOf = typeof body.dataAsOf === 'string' ? body.dataAsOf : undefined;
  return { file: { dataAsOf, conversions: rates }, problems };
}

/**
 * An immutable table answering "how many TO is one FROM worth", as Prebid Server's `Rates.GetRate` does: the direct
 * rate, else the inverse of the opposite rate, else a cross rate through a currency quoted against both (a base B
 * with rates B -> FROM and B -> TO gives TO / FROM). Nothing else is chained: a pair Prebid Server cannot price, this
 * table does not price either. Cross rates are found once and remembered.
 */
export class RateTable {
  private readonly rates: RateMap;
  /** Every code the table names, as a base or a target: a pair outside it is never priced. */
  private readonly known = new Set<string>();
  private readonly crossRates = new Map<string, number | undefined>();

  /** `rates` as `readRateMap` returns it: well-formed codes, positive rates. */
  constructor(rates: RateMap = {}) {
    this.rates = rates;
    for (const [from, targets] of Object.entries(rates)) {
      this.known.add(from);
      for (const to of Object.keys(targets)) this.known.add(to);
    }
  }

  get isEmpty(): boolean {
    return this.known.size === 0;
  }

  /** The rates as given, `{FROM: {TO: rate}}` (not to be changed). */
  get conversions(): Readonly<RateMap> {
    return this.rates;
  }

  /** Rate from one currency to another; undefined when the table cannot price the pair. Codes are looked up upper-cased. */
  rate(fromText: string, toText: string): number | undefined {
    if (fromText === toText) return 1;
    const from = currencyCode(fromText);
    const to = currencyCode(toText);
    if (!from || !to) return undefined;
    if (from === to) return 1;
    // Codes the table has never heard of return here, so the remembered cross rates stay bounded by the table.
    if (!this.known.has(from) || !this.known.has(to)) return undefined;
    const direct = this.quoted(from, to);
    if (direct !== undefined) return direct;
    const opposite = this.quoted(to, from);
    if (opposite !== undefined) return 1 / opposite;
    const key = `${from}${to}`;
    if (this.crossRates.has(key)) return this.crossRates.get(key);
    const cross = this.findCrossRate(from, to);
    this.crossRates.set(key, cross);
    return cross;
  }

  private quoted(from: string, to: string): number | undefined {
    const targets = Object.hasOwn(this.rates, from) ? this.rates[from]! : undefined;
    return targets && Object.hasOwn(targets, to) ? targets[to] : undefined;
  }

  /** Through the first base quoted against both (the usual bases first; Prebid Server takes any, in no set order). */
  private findCrossRate(from: string, to: string): number | undefined {
    for (const base of [...PREFERRED_BASES, ...Object.keys(this.rates)]) {
      const toRate = this.quoted(base, to);
      const fromRate = this.quoted(base, from);
      if (toRate !== undefined && fromRate !== undefined) return toRate / fromRate;
    }
    return undefined;
  }
}
