/**
 * The bidders of one imp. Params sit at `imp.ext.<bidder>` (the specification's form) or at
 * `imp.ext.<ns>.bidder.<bidder>` (Prebid.js's form); an imp may use both, and when both name the same bidder the
 * namespace form wins. An unknown name in a `bidder` map is a mistake (400); an unknown key directly in `imp.ext`
 * may be publisher data, so it only earns a warning and is dropped.
 */
import { WarningCode } from './report.js';
import { storedRequestError } from './request-options.js';
import { namespaceKeysIn, NAMESPACES, type ValidationScope } from './scope.js';
import { isObject, isPresent, type JsonObject } from './values.js';

/** Keys of `imp.ext` that are never bidders. */
export const RESERVED_IMP_EXT_KEYS: ReadonlySet<string> = new Set([
  ...NAMESPACES, 'context', 'data', 'gpid', 'skadn', 'tid', 'ae', 'igs', 'bidder',
]);

export function checkImpBidders(imp: JsonObject, impIndex: number, scope: ValidationScope): void {
  new ImpBidderCheck(impIndex, scope).run(imp.ext);
}

class ImpBidderCheck {
  private readonly path: string;
  /** Names of the bidders this imp goes to, as the request spells them. */
  private readonly bidders = new Set<string>();
  private reportedProblem = false;

  constructor(private readonly impIndex: number, private readonly scope: ValidationScope) {
    this.path = `request.imp[${impIndex}].ext`;
  }

  run(ext: unknown): void {
    if (isPresent(ext) && !isObject(ext)) {
      this.fail(`${this.path} must be an object`);
      return;
    }
    const extObject = isObject(ext) ? ext : {};
    const namespaceKeys = namespaceKeysIn(extObject, this.scope.namespace);
    for (const key of namespaceKeys) this.checkNamespace(extObject[key], `${this.path}.${key}`);
    this.checkDirectBidders(extObject);
    if (this.bidders.size === 0 && !this.reportedProblem) {
      // Names the namespace the request visibly used; with none in sight, the Prebid.js form, whose wording
      // Prebid Server clients know.
      const namespace = namespaceKeys[0] ?? this.scope.declaredNamespace ?? 'prebid';
      this.fail(`${this.path}.${namespace}.bidder must contain at least one bidder`);
    }
  }

  private checkNamespace(options: unknown, path: string): void {
    if (!isObject(options)) {
      this.fail(`${path} must be an object`);
      return;
    }
    this.scope.report.addError(storedRequestError(options.storedrequest, `${path}.storedrequest`));
    const bidderMap = options.bidder;
    if (!isPresent(bidderMap)) return;
    if (!isObject(bidderMap)) {
      this.fail(`${path}.bidder must be an object mapping bidder names to their params`);
      return;
    }
    const entries = Object.entries(bidderMap);
    if (entries.length === 0) this.fail(`${path}.bidder must contain at least one bidder`);
    for (const [name, params] of entries) {
      const hostBidder = this.scope.bidders.resolve(name);
      if (hostBidder === undefined) {
        this.fail(`${path}.bidder contains unknown bidder: ${name}. `
          + `Did you forget an alias in ${this.scope.optionsPath}.aliases?`);
      } else {
        this.accept(name, hostBidder, params, `${path}.bidder.${name}`);
      }
    }
  }

  private checkDirectBidders(ext: JsonObject): void {
    const ignored: string[] = [];
    for (const [key, params] of Object.entries(ext)) {
      if (RESERVED_IMP_EXT_KEYS.has(key) || this.bidders.has(key)) continue;
      const hostBidder = this.scope.bidders.resolve(key);
      if (hostBidder === undefined) {
        ignored.push(key);
        this.scope.report.addWarning(WarningCode.UnknownImpExtKey, `${this.path}.${key} is not a known bidder or alias, `
          + `so it was ignored. If it is an alias, declare it in ${this.scope.optionsPath}.aliases.`);
      } else {
        // Reported under the namespace form, the one the bidder's params are known by once split.
        this.accept(key, hostBidder, params, `${this.path}.${this.scope.namespace}.bidder.${key}`);
      }
    }
    if (ignored.length > 0) this.dropFromImpExt(ignored);
  }

  private accept(name: string, hostBidder: string, params: unknown, path: string): void {
    this.bidders.add(name);
    const problem = this.scope.validateBidderParams(hostBidder, params);
    if (problem !== undefined) this.fail(`${path} failed validation.\n${problem}`);
  }

  private dropFromImpExt(keys: string[]): void {
    const impIndex = this.impIndex;
    this.scope.report.addChange((payload) => {
      const ext = payload.request.imp?.[impIndex]?.ext;
      if (isObject(ext)) for (const key of keys) delete ext[key];
    });
  }

  private fail(message: string): void {
    this.reportedProblem = true;
    this.scope.report.addError(message);
  }
}
