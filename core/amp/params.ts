import type { Format } from '../api/index.js';
import { parseGppSid } from '../usersync/user-state.js';

/**
 * The query parameters of GET /openrtb2/amp (interface spec 4.3, reference behaviour 10), read once into typed
 * values. Anything unusable (not a number, an AMP macro the page never filled in) is simply absent, so the rest of
 * the endpoint never has to look at raw strings.
 */

/** The amp-ad size attributes. Zero or unparseable dimensions count as absent. */
export interface AmpSizes {
  /** `w`: the amp-ad `width`. */
  width?: number;
  /** `h`: the amp-ad `height`. */
  height?: number;
  /** `ow`: `data-override-width`. */
  overrideWidth?: number;
  /** `oh`: `data-override-height`. */
  overrideHeight?: number;
  /** `ms`: `data-multi-size`, empty when absent or malformed. */
  multiSize: Format[];
}

export interface AmpConsent {
  /** `consent_string`, or the older `gdpr_consent`. */
  value?: string;
  /** `consent_type`: 1 TCF v1, 2 TCF v2, 3 US privacy, 4 GPP (AMP's `consentStringType`). */
  type?: number;
  /** `gdpr_applies`: `true` / `false`. */
  gdprApplies?: boolean;
  /** `attl_consent`, or `addtl_consent` (both spellings are in use): Google's additional consent string. */
  additional?: string;
  /** `gpp`: a GPP string given on its own (a `consent_type` 4 consent string is one too). */
  gpp?: string;
  /**
   * `gpp_sid`: the GPP section ids in force (AMP's `gppSectionId`), a comma-separated list of integers as Prebid
   * Server reads one (each fits a signed byte); `'invalid'` when it is not one.
   */
  gppSid?: number[] | 'invalid';
}

export interface AmpParams {
  tagId?: string;
  sizes: AmpSizes;
  /** `curl`: the page's canonical URL. */
  canonicalUrl?: string;
  /** `slot`: the amp-ad `data-slot`, becomes `imp[0].tagid`. */
  slot?: string;
  /** `timeout`: the RTC callout timeout the page set (`timeoutMillis`). */
  timeoutMs?: number;
  /** `amp_timeout_adjustment_ms`: expected latency between the AMP runtime and us. */
  timeoutAdjustmentMs?: number;
  /** `targeting`: JSON text of the amp-ad `json.targeting`, merged into `imp[0].ext.data`. */
  targeting?: string;
  /** `account`: the publisher id. */
  account?: string;
  consent: AmpConsent;
  /** `debug=1`. */
  debug: boolean;
  /** `trace`: the hooks trace level the answer should carry (`basic` or `verbose`), as `ext.<ns>.trace`. */
  trace?: string;
  /** `__amp_source_origin`: the origin AMP's CORS answer must name. */
  sourceOrigin?: string;
}

/**
 * Placeholders an RTC vendor URL carries when the page did not supply the value: AMP leaves them in the URL as they
 * are (`account=ACCOUNT_ID`). Macros taking an argument (`ATTR(width)`, `CONSENT_METADATA(gdprApplies)`) are caught
 * by FUNCTION_MACRO whatever their argument.
 */
const UNFILLED_MACROS: Readonly<Record<string, string>> = {
  account: 'ACCOUNT_ID',
  curl: 'CANONICAL_URL',
  timeout: 'TIMEOUT',
  targeting: 'TGT',
  consent_string: 'CONSENT_STRING',
  gdpr_consent: 'CONSENT_STRING',
  gpp: 'CONSENT_STRING',
  slot: 'ATTR(data-slot)',
};
const FUNCTION_MACRO = /^(ATTR|CONSENT_METADATA)\(.*\)$/;

function isUnfilledMacro(name: string, value: string): boolean {
  return UNFILLED_MACROS[name] === value || FUNCTION_MACRO.test(value);
}

/** A parameter's value, or undefined when it is missing, empty or an unfilled macro. */
function text(query: Record<string, string>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === '' || isUnfilledMacro(name, value)) return undefined;
  return value;
}

function wholeNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const number = Number(value.trim());
  return Number.isSafeInteger(number) ? number : undefined;
}

/** A size side as Prebid Server reads one (strconv.ParseInt): an optional sign, then digits. */
function side(value: string): number | undefined {
  if (!/^[+-]?\d+$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

/**
 * A size dimension: a whole number; 0 means "not given", as AMP sends it for a missing attribute. A negative one is
 * used, as Prebid Server uses it, for validation to refuse.
 */
function dimension(query: Record<string, string>, name: string): number | undefined {
  const value = text(query, name);
  const number = value === undefined ? undefined : side(value.trim());
  return number === 0 ? undefined : number;
}

/**
 * `ms` is `320x50,300x50`. One malformed entry, or a `0x0` one, makes the whole list unusable, and it is then
 * ignored rather than half-applied. A size with one zero side is kept without that side, as Prebid Server writes it
 * (`320x0` is `{"w": 320}`); a negative side is kept for validation to refuse.
 */
export function parseMultiSize(value: string | undefined): Format[] {
  if (value === undefined || value.trim() === '') return [];
  const sizes: Format[] = [];
  for (const entry of value.split(',')) {
    const match = /^\s*([+-]?\d+)x([+-]?\d+)\s*$/.exec(entry);
    const w = match ? side(match[1]!) : undefined;
    const h = match ? side(match[2]!) : undefined;
    if (w === undefined || h === undefined || (w === 0 && h === 0)) return [];
    sizes.push({ ...(w !== 0 && { w }), ...(h !== 0 && { h }) });
  }
  return sizes;
}

/** The spellings Go's strconv.ParseBool reads, as Prebid Server reads `gdpr_applies`; any other is no value. */
const TRUE_WORDS: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function booleanParam(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (TRUE_WORDS.has(value)) return true;
  if (FALSE_WORDS.has(value)) return false;
  return undefined;
}

function gppSidParam(value: string | undefined): number[] | 'invalid' | undefined {
  if (value === undefined) return undefined;
  return parseGppSid(value) ?? 'invalid';
}

export function readAmpParams(query: Record<string, string>): AmpParams {
  const timeoutMs = wholeNumber(text(query, 'timeout'));
  return {
    tagId: text(query, 'tag_id'),
    sizes: {
      width: dimension(query, 'w'),
      height: dimension(query, 'h'),
      overrideWidth: dimension(query, 'ow'),
      overrideHeight: dimension(query, 'oh'),
      multiSize: parseMultiSize(text(query, 'ms')),
    },
    canonicalUrl: text(query, 'curl'),
    slot: text(query, 'slot'),
    timeoutMs: timeoutMs === 0 ? undefined : timeoutMs,
    timeoutAdjustmentMs: wholeNumber(text(query, 'amp_timeout_adjustment_ms')),
    targeting: text(query, 'targeting'),
    account: text(query, 'account'),
    consent: {
      value: text(query, 'consent_string') ?? text(query, 'gdpr_consent'),
      type: wholeNumber(text(query, 'consent_type')),
      gdprApplies: booleanParam(text(query, 'gdpr_applies')),
      additional: text(query, 'attl_consent') ?? text(query, 'addtl_consent'),
      gpp: text(query, 'gpp'),
      gppSid: gppSidParam(text(query, 'gpp_sid')),
    },
    debug: query.debug === '1',
    trace: text(query, 'trace'),
    sourceOrigin: text(query, '__amp_source_origin'),
  };
}
