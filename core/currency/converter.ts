import { currencyCodeProblem, isJsonObject, ConversionNotFoundError, type BidRequest, type PluginLogger } from '../api/index.js';
import { systemClock, type Clock } from '../app/tokens.js';
import { requestOptions, type Namespace } from '../auction/namespace.js';
import type { GavelConfig } from '../config/index.js';
import { loadGot } from '../outbound/got.js';
import { RateTable, readCurrencyFile, readRateMap, type CurrencyFile, type RateMap } from './rates.js';

/** Converts an amount between ISO 4217 currencies; undefined when no rate is known for the pair. */
export type ConvertPrice = (amount: number, from: string, to: string) => number | undefined;

/**
 * The converter as adapters get it (`RequestInfo.convertCurrency`), with Prebid Server's `ConvertCurrency` errors: a
 * code it cannot read throws its ParseISO text, the same currency (in any case) is identity, a pair with no rate
 * throws `ConversionNotFoundError` (codes upper-cased), or the auction's own text for it (`failure`, see
 * conversionFailure) when given.
 */
export function strictConversion(convert: ConvertPrice, failure?: (from: string, to: string) => string): (amount: number, from: string, to: string) => number {
  return (amount, from, to) => {
    const unreadable = currencyCodeProblem(from) ?? currencyCodeProblem(to);
    if (unreadable !== undefined) throw new Error(unreadable);
    if (from.toUpperCase() === to.toUpperCase()) return amount;
    const converted = convert(amount, from, to);
    if (converted !== undefined) return converted;
    const notFound = new ConversionNotFoundError(from.toUpperCase(), to.toUpperCase());
    const message = failure?.(from, to);
    throw message === undefined || message === notFound.message ? notFound : new Error(message);
  };
}

/**
 * Prebid Server's error for a pair the auction could not price, as its rates' `GetRate` words it: a code it cannot
 * read (the bid's, then the auction's; golang.org/x/text's texts), then `rates are nil` for a request that turned the
 * host's rates off (`usepbsrates: false`) and gave none of its own, else the rate not found, codes upper-cased.
 */
export function conversionFailure(from: string, to: string, request: BidRequest, namespace: Namespace): string {
  const unreadable = currencyCodeProblem(from) ?? currencyCodeProblem(to);
  if (unreadable !== undefined) return unreadable;
  const requested = requestOptions(request, namespace).currency;
  if (isJsonObject(requested) && requested.usepbsrates === false && requested.rates == null) return 'rates are nil';
  return new ConversionNotFoundError(from.toUpperCase(), to.toUpperCase()).message;
}

/** What the auction needs: one price converter per request, built from the host's rates and the request's own. */
export interface CurrencyService {
  converterFor(request: BidRequest, namespace: Namespace): ConvertPrice;
}

export interface CurrencyConverterOptions {
  /** Rates the host pins in its config; they win over the fetched file for every pair they can price. */
  rates?: RateMap;
  /** A Prebid currency file (`{"dataAsOf": ..., "conversions": {...}}`) fetched at start and then periodically. */
  url?: string;
  refreshMs: number;
  /** Fetched rates older than this stop being used; 0 keeps them forever. */
  staleAfterMs: number;
  timeoutMs: number;
  logger: PluginLogger;
  clock?: Clock;
}

/** Where the host's fetched rates stand, for logs and operators. */
export interface FetchedRatesState {
  url?: string;
  /** Epoch ms of the last successful fetch. */
  fetchedAt?: number;
  dataAsOf?: string;
  stale: boolean;
}

const EMPTY = new RateTable();


/** A time as Go's `time.Time` writes itself in JSON (RFC 3339, trailing zeros of the fraction dropped); Go's zero time for none. */
function goTimeText(epochMs: number | undefined): string {
  if (epochMs === undefined) return '0001-01-01T00:00:00Z';
  return new Date(epochMs).toISOString().replace(/\.?0*Z$/, 'Z');
}

function convertWith(rate: number | undefined, amount: number): number | undefined {
  return rate === undefined ? undefined : amount * rate;
}

/**
 * The host's currency rates: the pinned table from config, and the currency file at `url`, refetched every
 * `refreshMs`. A failed fetch keeps the last good table; a table older than `staleAfterMs` is no longer used, so no
 * bid is priced on rates the host has not managed to renew.
 */
export class CurrencyConverter implements CurrencyService {
  private readonly pinned: RateTable;
  private readonly clock: Clock;
  private fetched: RateTable = EMPTY;
  private fetchedAt: number | undefined;
  private dataAsOf: string | undefined;
  private staleReported = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: CurrencyConverterOptions) {
    const pinned = readRateMap(options.rates ?? {}, 'currency.rates');
    if (pinned.problems.length > 0) options.logger.warn({ problems: pinned.problems }, 'currency.rates entries ignored');
    this.pinned = new RateTable(pinned.rates);
    this.clock = options.clock ?? systemClock;
  }

  /** The first fetch (awaited, so the first auctions have rates), then the refresh timer. Never throws. */
  async start(): Promise<void> {
    if (!this.options.url) return;
    await this.refresh();
    this.scheduleRefresh();
  }

  /** Stops the refresh timer. A fetch already under way finishes but schedules nothing. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /**
   * Fetches the currency file once. On success the new table replaces the old one; on any failure the last good
   * table stays and the failure is logged. Never throws; answers whether the fetch succeeded.
   */
  async refresh(): Promise<boolean> {
    const url = this.options.url;
    if (!url) return false;
    let file: CurrencyFile;
    try {
      file = await this.fetchCurrencyFile(url);
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message, url, lastFetchedAt: this.fetchedAt }, 'currency rates fetch failed; keeping the last good rates');
      return false;
    }
    this.fetched = new RateTable(file.conversions);
    this.fetchedAt = this.clock.now();
    this.dataAsOf = file.dataAsOf;
    this.staleReported = false;
    this.options.logger.info({ url, dataAsOf: file.dataAsOf, currencies: Object.keys(file.conversions).length }, 'currency rates updated');
    return true;
  }

  /**
   * What `GET /currency/rates` shows, as Prebid Server's rate converter describes itself: where rates are fetched
   * from, how often, when they last came (the epoch when never), and the fetched rates while they are fresh.
   */
  info(): { active: true; source: string; fetchingIntervalNs: number; lastUpdated: string; rates?: Readonly<RateMap> } {
    const fresh = this.fetchedAt === undefined ? undefined : this.freshFetched();
    return {
      active: true,
      source: this.options.url ?? '',
      fetchingIntervalNs: this.options.refreshMs * 1_000_000,
      lastUpdated: goTimeText(this.fetchedAt),
      ...(fresh && !fresh.isEmpty ? { rates: fresh.conversions } : {}),
    };
  }

  state(): FetchedRatesState {
    return { url: this.options.url, fetchedAt: this.fetchedAt, dataAsOf: this.dataAsOf, stale: this.fetchedAt !== undefined && this.isStale() };
  }

  converterFor(request: BidRequest, namespace: Namespace): ConvertPrice {
    const requested = requestOptions(request, namespace).currency;
    if (!isJsonObject(requested) || (requested.rates === undefined && requested.usepbsrates !== false)) return this.convertWithHostRates;
    const requestRates = requested.rates === undefined ? EMPTY : new RateTable(readRateMap(requested.rates, 'rates', true).rates);
    const useHostRates = requested.usepbsrates !== false;
    return (amount, from, to) => {
      if (from === to) return amount;
      return convertWith(requestRates.rate(from, to) ?? (useHostRates ? this.hostRate(from, to) : undefined), amount);
    };
  }

  /** The converter of requests that bring no rates of their own: the same function every time, so no allocation. */
  private readonly convertWithHostRates: ConvertPrice = (amount, from, to) => {
    if (from === to) return amount;
    return convertWith(this.hostRate(from, to), amount);
  };

  private hostRate(from: string, to: string): number | undefined {
    return this.pinned.rate(from, to) ?? this.freshFetched().rate(from, to);
  }

  private isStale(): boolean {
    return this.options.staleAfterMs > 0 && this.fetchedAt !== undefined && this.clock.now() - this.fetchedAt > this.options.staleAfterMs;
  }

  private freshFetched(): RateTable {
    if (!this.isStale()) return this.fetched;
    if (!this.staleReported) {
      this.staleReported = true;
      this.options.logger.error(
        { url: this.options.url, fetchedAt: this.fetchedAt, staleAfterMs: this.options.staleAfterMs },
        'fetched currency rates are stale: bids needing them are dropped until a fetch succeeds',
      );
    }
    return EMPTY;
  }

  private scheduleRefresh(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.refresh().finally(() => this.scheduleRefresh());
    }, this.options.refreshMs);
    // Refreshing rates must never be what keeps the process alive.
    this.timer.unref();
  }

  private async fetchCurrencyFile(url: string): Promise<CurrencyFile> {
    const got = await loadGot();
    const response = await got(url, { timeout: { request: this.options.timeoutMs }, retry: { limit: 0 }, throwHttpErrors: false });
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`the currency server answered HTTP ${response.statusCode}`);
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new Error('the currency server answered with invalid JSON');
    }
    const { file, problems } = readCurrencyFile(body);
    if (Object.keys(file.conversions).length === 0) throw new Error(`the currency file holds no usable rates${problems.length ? `: ${problems[0]}` : ''}`);
    if (problems.length > 0) this.options.logger.warn({ url, problems: problems.slice(0, 10), count: problems.length }, 'currency file entries ignored');
    return file;
  }
}

/** Builds the host's converter from `config.currency` and makes its first fetch. */
export async function createCurrencyConverter(settings: GavelConfig['currency'], deps: { logger: PluginLogger; clock?: Clock }): Promise<CurrencyConverter> {
  const converter = new CurrencyConverter({
    rates: settings.rates,
    url: settings.url,
    refreshMs: settings.refreshSeconds * 1000,
    staleAfterMs: settings.staleAfterSeconds * 1000,
    timeoutMs: settings.timeoutMs,
    logger: deps.logger,
    clock: deps.clock,
  });
  await converter.start();
  return converter;
}
