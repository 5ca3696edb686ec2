import type { Format } from '../api/index.js';
import type { AmpSizes } from './params.js';

/**
 * The size an amp-ad asks for, from the first pair that is complete: the override attributes win over the plain
 * ones because they are how a publisher corrects a layout size (interface spec 4.3, rows 1 to 3 and 5).
 */
function primarySize({ width, height, overrideWidth, overrideHeight }: AmpSizes): Format | undefined {
  if (overrideWidth && overrideHeight) return { w: overrideWidth, h: overrideHeight };
  if (overrideWidth && height) return { w: overrideWidth, h: height };
  if (width && overrideHeight) return { w: width, h: overrideHeight };
  if (width && height) return { w: width, h: height };
  return undefined;
}

/**
 * `imp[0].banner.format` for an AMP request, given the stored formats and the query's sizes:
 * - a complete pair (ow+oh, ow+h, w+oh, w+h, first that applies) gives the first format, and the `ms` sizes follow
 *   it; `ms` alone gives its sizes (reference behaviour 10 orders the rows of spec 4.3 this way);
 * - otherwise a lone `w` (or a lone `h`) overrides that side of every stored format;
 * - otherwise the stored formats stay as they are.
 */
export function resolveBannerFormats(stored: Format[] | undefined, sizes: AmpSizes): Format[] | undefined {
  const primary = primarySize(sizes);
  const replacement = primary ? [primary, ...sizes.multiSize] : [...sizes.multiSize];
  if (replacement.length > 0) return replacement;
  if (!Array.isArray(stored)) return stored;
  if (sizes.width) return stored.map((format) => ({ ...format, w: sizes.width }));
  if (sizes.height) return stored.map((format) => ({ ...format, h: sizes.height }));
  return stored;
}
