import type { HookResult, RequestPayload, Warning } from '../../../core/api/index.js';
import { isObject, isPresent, type JsonObject } from './values.js';

export type RequestChange = (payload: RequestPayload) => void;

/** Warning codes of this module (Prebid Server's range for request warnings). */
export const WarningCode = {
  /** A key of `imp.ext` that names no bidder, alias or reserved field; it is dropped. */
  UnknownImpExtKey: 10999,
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
    if (isObject(value)) return value;
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

  toHookResult(): HookResult<RequestPayload> | undefined {
    // A clean request: the executor has nothing to do.
    if (this.invalid === undefined && this.changes === undefined && this.warnings === undefined) return undefined;
    const warnings = this.warnings !== undefined ? { warnings: { general: this.warnings } } : {};
    if (this.invalid !== undefined) return { action: 'reject', invalid: this.invalid, ...warnings };
    if (this.changes !== undefined) return { action: 'update', changes: this.changes, ...warnings };
    return { action: 'no-op', ...warnings };
  }
}
