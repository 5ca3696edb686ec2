import type { Context } from 'koa';

/**
 * CORS for browser clients (reference-behaviour section 11): Prebid.js sends credentials, so the origin is echoed
 * (never `*`), credentials allowed, and preflights answered. An allow-list, when configured, limits the echo.
 * Returns a function that sets the headers on an exchange and answers a preflight; it returns true when it did.
 */
export function corsHandler(allowedOrigins: string[]): (ctx: Context) => boolean {
  const allowList = allowedOrigins.length > 0 ? new Set(allowedOrigins) : undefined;
  return (ctx) => {
    const origin = ctx.req.headers.origin;
    // Set, not appended: this runs before any other header is set, so no Vary exists yet.
    ctx.set('Vary', 'Origin');
    if (origin && (!allowList || allowList.has(origin))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method !== 'OPTIONS') return false;
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || 'Content-Type');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
    return true;
  };
}
