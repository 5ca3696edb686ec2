import type { HookResult, RequestPayload, Warning } from '../../../core/api/index.js';
import { isObject, isPresent, type JsonObject } from './values.js';

export type RequestChange = (payload: RequestPayload) => void;

/** Warning codes of this module (Prebid Server's range for request warnings). */
export const WarningCode = {
  /** A key of `imp.ext` that names no bidder, alias or reserved field; it is dropped. */
  UnknownImpExtKey: 10999,
} as const;

/** Collects what one validation pass found: the 400 lines, the warnings, and the normalisations to apply. */
export class ValidationReport {
  readonly invalid: string[] = [];
  readonly warnings: Warning[] = [];
  readonly changes: RequestChange[] = [];

  /** Records a 400 line when a check produced one; checks return undefined when all is well. */
  addError(message: string | undefined): void {
    if (message !== undefined) this.invalid.push(message);
  }

  /**
   * Reads an optional object field: undefined when absent; when present but not an object, records `message` and
   * gives undefined too, so the caller's checks of its content are skipped.
   */
  optionalObject(value: unknown, message: string): JsonObject | undefined {
    if (!isPresent(value)) return undefined;
    if (isObject(value)) return value;
    this.addError(message);
    return undefined;
  }

  addWarning(code: number, message: string): void {
    this.warnings.push({ code, message });
  }

  addChange(change: RequestChange): void {
    this.changes.push(change);
  }

  get hasErrors(): boolean {
    return this.invalid.length > 0;
  }

  toHookResult(): HookResult<RequestPayload> | undefined {
    const warnings = this.warnings.length > 0 ? { warnings: { general: this.warnings } } : {};
    if (this.hasErrors) return { action: 'reject', invalid: this.invalid, ...warnings };
    if (this.changes.length > 0) return { action: 'update', changes: this.changes, ...warnings };
    return this.warnings.length > 0 ? { action: 'no-op', ...warnings } : undefined;
  }
}
