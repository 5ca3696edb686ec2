import type { AuctionContext, BidRequest, RequestPayload, Warning } from '../../../core/api/index.js';
import { isJsonObject } from '../../../core/api/index.js';
import { isPresent, type JsonObject } from './values.js';

export type RequestChange = (payload: RequestPayload) => void;

/** Warning codes of this module, as Prebid Server numbers the same warnings. */
export const WarningCode = {
  /** A key of `imp.ext` that names no bidder, alias or reserved field: no bidder is called for it (a warning without a code there: 0). */
  UnknownImpExtKey: 0,
} as const;

/**
 * Collects what one validation pass found: the 400 lines, the warnings, and the normalisations to apply. Each list
 * is created with its first entry: most requests have none, and they cost nothing.
 */
export class ValidationReport {
  private invalid?: string[];
  private warnings?: Warning[];
  private changes?: RequestChange[];

  /** Records a 400 line when a check produced one; checks return undefined when all is well. */
  addError(message: string | undefined): void {
    if (message !== undefined) (this.invalid ??= []).push(message);
  }

  /**
   * Reads an optional object field: undefined when absent; when present but not an object, records
   * `<path> <requirement>` and gives undefined too, so the caller's checks of its content are skipped. The line is
   * spelled only then: valid requests pay nothing for it.
   */
  optionalObject(value: unknown, path: string, requirement = 'must be an object'): JsonObject | undefined {
    if (!isPresent(value)) return undefined;
    if (isJsonObject(value)) return value;
    this.addError(`${path} ${requirement}`);
    return undefined;
  }

  addWarning(code: number, message: string): void {
    (this.warnings ??= []).push({ code, message });
  }

  addChange(change: RequestChange): void {
    (this.changes ??= []).push(change);
  }

  get hasErrors(): boolean {
    return this.invalid !== undefined;
  }

  /**
   * Reports the warnings, then either gives the 400 lines (leaving an invalid request as it came) or applies the
   * normalisations to the request, which the auction owns.
   */
  settle(request: BidRequest, context: Pick<AuctionContext, 'warn'>): string[] | undefined {
    if (this.warnings !== undefined) for (const warning of this.warnings) context.warn('general', warning);
    if (this.invalid !== undefined) return this.invalid;
    if (this.changes !== undefined) {
      const payload: RequestPayload = { request };
      for (const change of this.changes) change(payload);
    }
    return undefined;
  }
}
