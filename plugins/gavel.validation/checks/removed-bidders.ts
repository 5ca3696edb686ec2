/**
 * Bidders Prebid Server no longer has, with the message it answers when an imp names one
 * (GetDisabledBidderWarningMessages, exchange/adapter_util.go): its validator drops them from the imp with that warning
 * (code 6) rather than calling them unknown. A host bidder of the same name is a bidder like any other.
 */
const NO_LONGER_AVAILABLE = (name: string, advice = 'Please update your configuration.'): string =>
  `Bidder "${name}" is no longer available in Prebid Server. ${advice}`;

const rename = (name: string, what: string, to: string): string =>
  NO_LONGER_AVAILABLE(name, `If you're looking to use the ${what} adapter, please rename it to "${to}" in your configuration.`);

export const REMOVED_BIDDERS: ReadonlyMap<string, string> = new Map([
  ...['lifestreet', 'somoaudience', 'oftmedia', 'groupm', 'verizonmedia', 'brightroll', 'engagebdr', 'ninthdecimal', 'kubient',
    'applogy', 'rhythmone', 'nanointeractive', 'intertech', 'adocean', 'dxkulture', 'mobupps', 'vimayx'].map((name) => [name, NO_LONGER_AVAILABLE(name)] as const),
  ['yssp', rename('yssp', 'Yahoo SSP', 'yahooAds')],
  ['andbeyondmedia', rename('andbeyondmedia', 'AndBeyond.Media SSP', 'beyondmedia')],
  ['liftoff', rename('liftoff', 'Vungle Exchange', 'vungle')],
  ['adoppler', rename('adoppler', 'Adoppler', 'elementaltv')],
  ['bizzclick', NO_LONGER_AVAILABLE('bizzclick', 'Please update your configuration. "bizzclick" has been renamed to "blasto".')],
  ['gothamads', NO_LONGER_AVAILABLE('gothamads', 'Please rename it to "intenze" in your configuration.')],
]);
