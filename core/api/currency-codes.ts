/**
 * Currency codes as Prebid Server reads them (golang.org/x/text/currency's `ParseISO`): three ASCII letters in any
 * case, naming an ISO 4217 currency. Its texts for a code it cannot read.
 */
export const CURRENCY_NOT_WELL_FORMED = 'currency: tag is not well-formed';
export const CURRENCY_NOT_RECOGNIZED = 'currency: tag is not a recognized currency';

const THREE_LETTERS = /^[A-Za-z]{3}$/;
/** The ISO 4217 codes this runtime knows, read once. */
let isoCodes: ReadonlySet<string> | undefined;

/** Why Prebid Server cannot read a currency code (its error text), or undefined when it can. */
export function currencyCodeProblem(code: string): string | undefined {
  if (!THREE_LETTERS.test(code)) return CURRENCY_NOT_WELL_FORMED;
  isoCodes ??= new Set(Intl.supportedValuesOf('currency'));
  return isoCodes.has(code.toUpperCase()) ? undefined : CURRENCY_NOT_RECOGNIZED;
}
