/**
 * Answers "which host bidder does this request name stand for?". Host bidder names are lowercase; names in requests
 * match them case-insensitively (`Appnexus` is appnexus). Request aliases (`request.ext.<ns>.aliases`) take
 * precedence over host bidder names, so that a new host bidder never changes what an existing alias means.
 */
export class BidderDirectory {
  private readonly aliases = new Map<string, string>();
  private readonly aliasesByLowerCase = new Map<string, string>();

  constructor(private readonly hostBidders: ReadonlyMap<string, unknown>) {}

  /** The host bidder's canonical (lowercase) name, or undefined when the host does not run it. */
  hostBidder(name: string): string | undefined {
    const lowerCase = name.toLowerCase();
    return this.hostBidders.has(lowerCase) ? lowerCase : undefined;
  }

  addAlias(alias: string, hostBidder: string): void {
    this.aliases.set(alias, hostBidder);
    this.aliasesByLowerCase.set(alias.toLowerCase(), hostBidder);
  }

  /** The host bidder that serves a name from the request (an alias or a bidder name), or undefined. */
  resolve(name: string): string | undefined {
    return this.aliases.get(name) ?? this.hostBidder(name) ?? this.aliasesByLowerCase.get(name.toLowerCase());
  }
}
