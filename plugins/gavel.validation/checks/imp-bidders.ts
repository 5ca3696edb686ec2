/**
 * The bidders of one imp. Params sit at `imp.ext.<bidder>` (the specification's form) or at
 * `imp.ext.<ns>.bidder.<bidder>` (Prebid.js's form); an imp may use both, and when both name the same bidder the
 * namespace form wins. An imp with no `bidder` map leaves validation with its bidders moved into one. An unknown name in a `bidder` map is a mistake (400); an unknown key directly in `imp.ext`
 * may be publisher data, so it only earns a warning: it is no bidder, and it stays in the imp, which every bidder
 * receives it in (as Prebid Server keeps it, ortb/request_validator.go validateImpExt).
 *
 * Every imp of every auction comes through here, so paths are spelled only for a message.
 */
import { BidderErrorCode, decodeGoFields, encodeImpOptionsAsPrebidServer, GO_STRING_FIELD, goObjectExpected, hasOwnKeys, RESERVED_IMP_EXT_KEYS } from '../../../core/api/index.js';
import { REMOVED_BIDDERS } from './removed-bidders.js';
import { WarningCode } from './report.js';
import { storedRequestError } from './request-options.js';
import { firstNamespaceIn, impPath, namespacesInOrder, NAMESPACES, type Namespace, type ValidationScope } from './scope.js';
import { isJsonObject } from '../../../core/api/index.js';
import { hasKind, isPresent, kindError, type JsonKind, type JsonObject } from './values.js';

/** The members of `imp.ext` Prebid Server decodes into typed fields besides its namespace (openrtb_ext.ImpExt). */
const IMP_EXT_FIELDS: ReadonlyArray<readonly [field: string, kind: JsonKind]> = [['data', 'object'], ['tid', 'string'], ['gpid', 'string']];

export function checkImpBidders(imp: JsonObject, impIndex: number, scope: ValidationScope): void {
  new ImpBidderCheck(impIndex, scope).run(imp.ext);
}

class ImpBidderCheck {
  /** How many bidders this imp goes to (one named under both namespaces counts twice: only "none" matters). */
  private acceptedBidders = 0;
  private reportedProblem = false;

  constructor(private readonly impIndex: number, private readonly scope: ValidationScope) {}

  run(ext: unknown): void {
    if (!isPresent(ext)) {
      this.fail(`${this.extPath()} is required`);
      return;
    }
    if (!isJsonObject(ext)) {
      // Prebid Server reads imp.ext as any JSON first, and fails on it when it converts the request up to 2.6.
      this.fail(kindError(ext, 'object', this.extPath(), this.decoderContext())!);
      return;
    }
    if (isJsonObject(ext)) {
      for (const namespace of namespacesInOrder(this.scope.namespace)) {
        if (isPresent(ext[namespace])) this.checkNamespace(ext[namespace], namespace);
      }
      for (const [field, kind] of IMP_EXT_FIELDS) {
        const value = ext[field];
        if (isPresent(value) && !hasKind(value, kind)) this.fail(kindError(value, kind, `${this.extPath()}.${field}`, this.decoderContext())!);
      }
      if (isJsonObject(ext.data)) {
        const undecodable = impDataDecodeProblem(ext.data);
        if (undecodable !== undefined) this.fail(`${this.decoderContext()}: ${undecodable} (in ${this.extPath()}.data)`);
      }
      this.checkDirectBidders(ext);
    }
    if (this.acceptedBidders === 0 && !this.reportedProblem) {
      // Names the namespace the request visibly used; with none in sight, the Prebid.js form, whose wording
      // Prebid Server clients know.
      const namespace = (isJsonObject(ext) ? firstNamespaceIn(ext, this.scope.namespace) : undefined)
        ?? this.scope.declaredNamespace ?? 'prebid';
      this.fail(`${this.extPath()}.${namespace}.bidder must contain at least one bidder`);
    }
  }

  /** `request.imp[i].ext` */
  private extPath(): string {
    return `${impPath(this.impIndex)}.ext`;
  }

  /** How Prebid Server words an imp ext it cannot decode (`imp[0].imp.ext is invalid: expect { or n, but found 1`). */
  private decoderContext(): string {
    return `imp[${this.impIndex}].imp.ext is invalid`;
  }

  private checkNamespace(options: unknown, namespace: Namespace): void {
    if (!isJsonObject(options)) {
      this.fail(kindError(options, 'object', `${this.extPath()}.${namespace}`, this.decoderContext())!);
      return;
    }
    if (isPresent(options.storedrequest)) {
      this.scope.report.addError(storedRequestError(options.storedrequest, `${this.extPath()}.${namespace}.storedrequest`));
    }
    const bidderMap = options.bidder;
    if (!isPresent(bidderMap)) return;
    if (!isJsonObject(bidderMap)) {
      this.fail(`${this.extPath()}.${namespace}.bidder must be an object mapping bidder names to their params`);
      return;
    }
    if (!hasOwnKeys(bidderMap)) this.fail(`${this.extPath()}.${namespace}.bidder must contain at least one bidder`);
    for (const name in bidderMap) {
      if (!Object.hasOwn(bidderMap, name)) continue; // see hasOwnKeys
      const hostBidder = this.scope.bidders.resolve(name);
      if (hostBidder === undefined && this.isRemoved(name)) {
        this.dropFromImp(name);
      } else if (hostBidder === undefined) {
        this.fail(`${this.extPath()}.${namespace}.bidder contains unknown bidder: ${name}. `
          + `Did you forget an alias in ${this.scope.optionsPaths.aliases}?`);
      } else if (this.isSwitchedOff(name, hostBidder)) {
        this.dropFromImp(name);
      } else {
        this.accept(name, hostBidder, bidderMap[name], namespace);
      }
    }
  }

  private checkDirectBidders(ext: JsonObject): void {
    let promoted: string[] | undefined;
    const promote = !hasNamespaceBidderMap(ext);
    for (const key in ext) {
      if (!Object.hasOwn(ext, key) || RESERVED_IMP_EXT_KEYS.has(key)) continue; // see hasOwnKeys
      const hostBidder = this.scope.bidders.resolve(key);
      // Prebid Server looks at direct keys only while it promotes them (an imp without a bidder map).
      if (hostBidder === undefined && promote && this.isRemoved(key)) {
        this.dropFromImp(key);
      } else if (hostBidder === undefined) {
        // Prebid Server's words first (clients match on them), then how to make it a bidder.
        this.scope.report.addWarning(WarningCode.UnknownImpExtKey, `${this.extPath()} contains unknown bidder: '${key}', `
          + `ignoring. If it is an alias, declare it in ${this.scope.optionsPaths.aliases}.`);
      } else if (!namedInNamespaceForm(ext, key)) {
        if (this.isSwitchedOff(key, hostBidder)) {
          this.dropFromImp(key);
          continue;
        }
        // Reported under the namespace form, the one the bidder's params are known by once split.
        this.accept(key, hostBidder, ext[key], this.scope.namespace);
        if (promote) (promoted ??= []).push(key);
      }
    }
    if (promoted !== undefined) this.promoteToNamespaceForm(promoted);
  }

  /**
   * An imp that names its bidders only directly in `imp.ext` leaves validation with them in the namespace form, as
   * Prebid Server promotes them (ortb/request_validator.go validateImpExt): what hooks, the debug output and the
   * rest of the auction see is one form. An imp that has a `bidder` map keeps its direct keys where they are.
   */
  private promoteToNamespaceForm(names: string[]): void {
    const impIndex = this.impIndex;
    const namespace = this.scope.namespace;
    this.scope.report.addChange((payload) => {
      const imp = payload.request.imp?.[impIndex];
      const ext = imp?.ext;
      if (!isJsonObject(ext)) return;
      // A new object rather than deletes (a deleted key turns the imp's ext into a slow dictionary for the split);
      // built from entries, so that a `__proto__` member stays data.
      const entries = Object.entries(ext);
      const bidder = Object.fromEntries(entries.filter(([key]) => names.includes(key)));
      const rebuilt: JsonObject = Object.fromEntries(entries.filter(([key]) => !names.includes(key)));
      // Written as Prebid Server writes its struct once it has promoted bidders: members it does not know are gone.
      const options = rebuilt[namespace];
      rebuilt[namespace] = encodeImpOptionsAsPrebidServer(isJsonObject(options) ? { ...options, bidder } : { bidder });
      imp!.ext = rebuilt;
    });
  }

  /**
   * A bidder the host switched off leaves the imp with a warning in Prebid Server's words (code 6), as its validator
   * drops it (ortb/request_validator.go validateImpExt): the imp still needs another bidder.
   */
  private isSwitchedOff(name: string, hostBidder: string): boolean {
    if (this.scope.bidders.isEnabled(hostBidder)) return false;
    this.scope.report.addWarning(BidderErrorCode.BidderTemporarilyDisabled, `Bidder "${name}" has been disabled on this instance of `
      + 'Prebid Server. Please work with the PBS host to enable this bidder again.');
    return true;
  }

  /** A bidder Prebid Server no longer has leaves the imp with its warning (code 6), as a switched-off one does. */
  private isRemoved(name: string): boolean {
    const message = REMOVED_BIDDERS.get(name);
    if (message === undefined) return false;
    this.scope.report.addWarning(BidderErrorCode.BidderTemporarilyDisabled, message);
    return true;
  }

  /** Removes a bidder from the imp, in whichever form (or forms) the imp names it. */
  private dropFromImp(name: string): void {
    const impIndex = this.impIndex;
    this.scope.report.addChange((payload) => {
      const ext = payload.request.imp?.[impIndex]?.ext;
      if (!isJsonObject(ext)) return;
      delete ext[name];
      for (const namespace of NAMESPACES) {
        const options = ext[namespace];
        if (isJsonObject(options) && isJsonObject(options.bidder)) delete options.bidder[name];
      }
    });
  }

  /** Params failures read `request.imp[i].ext.<ns>.bidder.<name> failed validation.` whichever form they came in. */
  private accept(name: string, hostBidder: string, params: unknown, namespace: Namespace): void {
    this.acceptedBidders++;
    const problem = this.scope.validateBidderParams(hostBidder, params);
    if (problem !== undefined) this.fail(`${this.extPath()}.${namespace}.bidder.${name} failed validation.\n${problem}`);
  }

  private fail(message: string): void {
    this.reportedProblem = true;
    this.scope.report.addError(message);
  }
}

const IMP_DATA_FIELDS = { pbadslot: GO_STRING_FIELD('PbAdslot'), adserver: { goName: 'AdServer', refuse: (value: unknown) => (isJsonObject(value) ? undefined : goObjectExpected(value)) } };
const IMP_DATA_AD_SERVER_FIELDS = { name: GO_STRING_FIELD('Name'), adslot: GO_STRING_FIELD('AdSlot') };

/** `imp.ext.data` as Prebid Server decodes it (`openrtb_ext.ExtImpData`, its `adserver` too): the decoder's text, or undefined. */
function impDataDecodeProblem(data: JsonObject): string | undefined {
  const decoded = decodeGoFields(data, 'openrtb_ext.ExtImpData', IMP_DATA_FIELDS);
  if ('error' in decoded) return decoded.error;
  const adServer = decoded.values.adserver;
  if (!isJsonObject(adServer)) return undefined;
  const decodedAdServer = decodeGoFields(adServer, 'openrtb_ext.ExtImpDataAdServer', IMP_DATA_AD_SERVER_FIELDS);
  return 'error' in decodedAdServer ? decodedAdServer.error : undefined;
}

/** Whether the imp has an `imp.ext.<ns>.bidder` member under either namespace (Prebid Server's `prebid.bidder != nil`). */
function hasNamespaceBidderMap(ext: JsonObject): boolean {
  for (const namespace of NAMESPACES) {
    const options = ext[namespace];
    if (isJsonObject(options) && isPresent(options.bidder)) return true;
  }
  return false;
}

/** Whether an `imp.ext.<ns>.bidder` map names this bidder too: that form wins, and was checked already. */
function namedInNamespaceForm(ext: JsonObject, name: string): boolean {
  for (const namespace of NAMESPACES) {
    const options = ext[namespace];
    if (isJsonObject(options) && isJsonObject(options.bidder) && Object.hasOwn(options.bidder, name)) return true;
  }
  return false;
}
