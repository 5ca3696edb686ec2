/**
 * Answers "which host bidder does this request name stand for?". Host bidder names are lowercase; names in requests
 * match them case-insensitively (`Appnexus` is appnexus). Request aliases (`request.ext.<ns>.aliases`) take
 * precedence over host bidder names, so that a new host bidder never changes what an existing alias means.
 */
export class BidderDirectory {
  /** Created with the first alias: most requests declare none, and one directory is made per request. */
  private aliases?: Map<string, string>;
  private aliasesByLowerCase?: Map<string, string>;

  constructor(private readonly hostBidders: ReadonlyMap<string, unknown>) {}

  /** The host bidder's canonical (lowercase) name, or undefined when the host does not run it. */
  hostBidder(name: string): string | undefined {
    // Requests mostly spell bidders as the host does, and host names are lowercase (ModuleDeps.bidders): a hit
    // needs no lowercase copy, which toLowerCase allocates even for a name it leaves unchanged.
    if (this.hostBidders.has(name)) return name;
    const lowerCase = name.toLowerCase();
    return this.hostBidders.has(lowerCase) ? lowerCase : undefined;
  }

  /** Whether this host runs the bidder (a host bidder switched off, or waiting for its setup, is not enabled). */
  isEnabled(hostBidder: string): boolean {
    const entry = this.hostBidders.get(hostBidder);
    return !(typeof entry === 'object' && entry !== null && (entry as { enabled?: unknown }).enabled === false);
  }

  addAlias(alias: string, hostBidder: string): void {
    (this.aliases ??= new Map()).set(alias, hostBidder);
    (this.aliasesByLowerCase ??= new Map()).set(alias.toLowerCase(), hostBidder);
  }

  /** Whether the request declares this alias, spelt exactly so (Prebid Server's own lookups of its aliases map). */
  isAliasAsSpelt(name: string): boolean {
    return this.aliases?.has(name) === true;
  }

  /** The host bidder that serves a name from the request (an alias or a bidder name), or undefined. */
  resolve(name: string): string | undefined {
    if (this.aliases === undefined) return this.hostBidder(name);
    return this.aliases.get(name) ?? this.hostBidder(name) ?? this.aliasesByLowerCase?.get(name.toLowerCase());
  }
}
