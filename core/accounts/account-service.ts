import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ErrorCode, isJsonObject, type AccountSettings, type PluginLogger } from '../api/index.js';
import { ExecutionPlanSchema } from '../config/schema.js';
import { CachingFetcher, MalformedStoredData, mergePatch, StoredFetchError, type FetchOptions, type StoredDataFetcher } from '../stored/index.js';
import { accountSchema } from './account-schema.js';
import { unpackDsaDefault } from './dsa-default.js';

/** Why a request cannot run under its account: the HTTP status Prebid Server answers, a stable code, the message. */
export interface AccountRefusal {
  status: 400 | 503;
  code: ErrorCode;
  message: string;
}

export type AccountOutcome = { account: AccountSettings } | { refusal: AccountRefusal };

/**
 * The id a request naming no account runs under (Prebid Server's `metrics.PublisherUnknown`): looked up like any other
 * id (a stored account `unknown` applies), refused when the host requires accounts, and written where the id goes
 * (event URLs' `a=unknown`).
 */
export const UNKNOWN_ACCOUNT_ID = 'unknown';

/** Host settings of the account service (`accounts` in the config). */
export interface AccountServiceSettings {
  /** Refuse requests that name no account. */
  required: boolean;
  /** Merged under every account; alone for requests naming none. Checked at boot by the config schema. */
  defaults: Record<string, unknown>;
}

/** What the endpoints ask of accounts (the DI token `Tokens.Accounts`; tests and runners may replace it). */
export interface AccountLoader {
  /** The account a request runs under, or why it may not run: synchronous when the answer is known at once. */
  load(id: string, options?: FetchOptions): AccountOutcome | Promise<AccountOutcome>;
}

/** Prebid Server's masks when an account's own bit count is out of range. */
const DEFAULT_KEEP_BITS = { ipv4: 24, ipv6: 56 } as const;
const MAX_KEEP_BITS = { ipv4: 32, ipv6: 128 } as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateStoredAccount: ValidateFunction = ajv.compile(accountSchema({ closed: false, executionPlan: ExecutionPlanSchema }));

function describe(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return 'not a JSON object';
  const path = first.instancePath.split('/').slice(1).join('.') || '(root)';
  return `${path} ${first.message ?? 'is invalid'}`;
}

/**
 * Accounts, as Prebid Server keeps them (`account/account.go`): JSON documents in the stored-data backends
 * (`accounts/<id>.json`, PostgreSQL, HTTP, behind the same cache), checked against the account schema when loaded,
 * with the host's defaults merged under them (a JSON merge patch of the account over the defaults).
 *
 * - A request naming no account runs under the id `unknown` (looked up as any id), unless the host requires an
 *   account (400; a request naming `unknown` itself too).
 * - An id the backend does not know runs on the defaults too (Prebid Server's rule: an account is a set of
 *   overrides, not a permit), unless the host requires accounts and its defaults are disabled (400).
 * - A disabled account is refused with a 503, as Prebid Server answers.
 * - An account that fails the schema is refused with a 503 naming the account (the host, not the client, must fix
 *   it), and the reason is logged; a backend failure is a 503 too.
 *
 * The merged settings are kept per fetched document (the cache hands out the same object while it holds it), so a
 * cached account is checked and merged once, not per request.
 */
export class AccountService implements AccountLoader {
  private readonly settled = new WeakMap<object, AccountOutcome>();
  private readonly unnamedRefusal: AccountOutcome | undefined;

  constructor(
    private readonly fetcher: StoredDataFetcher,
    private readonly settings: AccountServiceSettings,
    private readonly logger: PluginLogger,
  ) {
    this.unnamedRefusal = settings.required
      ? {
          refusal: {
            status: 400,
            code: ErrorCode.AccountRequired,
            // Prebid Server's words, then how to fix it (reference behaviour 2).
            message:
              'Prebid-server has been configured to discard requests without a valid Account ID. Please reach out to the prebid server host. ' +
              'Set site.publisher.id (app.publisher.id or dooh.publisher.id; the account parameter on AMP) to the account id your host gave you.',
          },
        }
      : undefined;
  }

  /**
   * The account a request runs under. A request naming none (`''`) runs under `unknown`, as in Prebid Server, and
   * `unknown` is refused at once when the host requires accounts. Synchronous when the stored-data cache holds the
   * account (or remembers it missing): the usual case, which then costs no promise.
   */
  load(id: string, options?: FetchOptions): AccountOutcome | Promise<AccountOutcome> {
    if (id === '') id = UNKNOWN_ACCOUNT_ID;
    if (id === UNKNOWN_ACCOUNT_ID && this.unnamedRefusal) return this.unnamedRefusal;
    const cached = this.fetcher instanceof CachingFetcher ? this.fetcher.peek('account', id) : undefined;
    if (cached) return 'missing' in cached ? this.unknown(id) : this.found(id, cached.document);
    return this.loadStored(id, options);
  }

  private async loadStored(id: string, options?: FetchOptions): Promise<AccountOutcome> {
    let document: unknown;
    try {
      document = this.fetcher.fetchAccount ? await this.fetcher.fetchAccount(id, options) : undefined;
    } catch (err) {
      if (err instanceof MalformedStoredData) return this.malformed(id, 'not valid JSON');
      this.logger.error({ err, account: id }, 'account fetch failed');
      const why = err instanceof StoredFetchError && err.details.reason === 'deadline' ? 'the stored-data backend did not answer in time' : 'the stored-data backend failed';
      return { refusal: { status: 503, code: ErrorCode.StoredFetchFailed, message: `account "${id}" cannot be read now: ${why}; try again` } };
    }
    return document === undefined ? this.unknown(id) : this.found(id, document);
  }

  /** A fetched document's outcome, settled once per document object. */
  private found(id: string, document: unknown): AccountOutcome {
    if (isJsonObject(document)) {
      const known = this.settled.get(document);
      if (known) return known;
    }
    const outcome = this.settle(id, document);
    if (isJsonObject(document)) this.settled.set(document, outcome);
    return outcome;
  }

  /** An id no backend knows: the defaults under that id, or a refusal when the host requires known accounts. */
  private unknown(id: string): AccountOutcome {
    if (this.settings.required && this.settings.defaults.disabled === true) {
      return { refusal: { status: 400, code: ErrorCode.AccountRequired, message: 'Prebid-server could not verify the Account ID. Please reach out to the prebid server host.' } };
    }
    return this.checked(this.defaultsFor(id), id);
  }

  private settle(id: string, document: unknown): AccountOutcome {
    if (!isJsonObject(document)) return this.malformed(id, describe(null));
    // Neither input is changed by the merge; the result shares what it does not override with both, and like every
    // account it is only read from here on. The merged account is what is checked, as Prebid Server decodes the
    // account once merged over its defaults: a member the account sets to null is gone, not malformed.
    const merged = mergePatch(this.settings.defaults, document) as AccountSettings;
    if (!validateStoredAccount(merged)) return this.malformed(id, describe(validateStoredAccount.errors));
    // Prebid Server unpacks the DSA default once the account decodes, before it looks at anything else in it.
    const dsaDefault = typeof merged.privacy?.dsa?.default === 'string' ? unpackDsaDefault(merged.privacy.dsa.default) : undefined;
    if (dsaDefault && 'error' in dsaDefault) return this.malformed(id, `privacy.dsa.default: ${dsaDefault.error}`, 'DSA ');
    if (typeof merged.id !== 'string' || merged.id === '') merged.id = id;
    if (isJsonObject(merged.bid_validations)) merged.validations = { ...merged.validations, ...merged.bid_validations };
    keepMasksInRange(merged);
    return this.checked(merged, id);
  }

  /**
   * Prebid Server's words for a stored account that does not fit the account schema: the fault is the host's, and
   * the publisher can only report it, so which field is wrong goes to the host's log, not to the answer.
   */
  private malformed(id: string, reason: string, part: '' | 'DSA ' = ''): AccountOutcome {
    this.logger.error({ account: id, reason }, 'account config is malformed');
    return {
      refusal: {
        status: 503,
        code: ErrorCode.AccountMalformed,
        message: `The prebid-server account config ${part}for account id "${id}" is malformed. Please reach out to the prebid server host.`,
      },
    };
  }

  /** A disabled account is refused by the id the request asked for (Prebid Server's words), whatever id it holds. */
  private checked(account: AccountSettings, id: string): AccountOutcome {
    if (account.disabled === true) {
      return { refusal: { status: 503, code: ErrorCode.AccountDisabled, message: `Prebid-server has disabled Account ID: ${id}, please reach out to the prebid server host.` } };
    }
    return { account };
  }

  /**
   * The defaults under an id: a shallow copy, its sections shared (accounts are only read). Copied with
   * Object.assign, not a spread: in a long-running process V8 gave each spread copy a hidden class of its own, so every
   * site that reads the account (some twenty per auction) missed its inline cache on every auction.
   */
  private defaultsFor(id: string): AccountSettings {
    const account = Object.assign({}, this.settings.defaults) as AccountSettings;
    account.id = id;
    return account;
  }
}

/** Prebid Server falls back to its default masks when an account's bit counts are out of range. */
function keepMasksInRange(account: AccountSettings): void {
  const privacy = account.privacy;
  if (!privacy) return;
  for (const family of ['ipv4', 'ipv6'] as const) {
    const bits = privacy[family]?.anon_keep_bits;
    if (bits !== undefined && (bits < 0 || bits > MAX_KEEP_BITS[family])) {
      account.privacy = { ...account.privacy, [family]: { ...privacy[family], anon_keep_bits: DEFAULT_KEEP_BITS[family] } };
    }
  }
}
