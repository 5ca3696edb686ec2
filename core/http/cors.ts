import type { Middleware } from 'koa';

/**
 * CORS for browser clients (reference-behaviour section 11): Prebid.js sends credentials, so the origin is echoed
 * (never `*`), credentials allowed, and preflights answered. An allow-list, when configured, limits the echo.
 */
export function cors(allowedOrigins: string[]): Middleware {
  const allowList = allowedOrigins.length > 0 ? new Set(allowedOrigins) : undefined;
  return (ctx, next) => {
    const origin = ctx.get('origin');
    // Set, not appended: this middleware runs first, so no Vary exists yet.
    ctx.set('Vary', 'Origin');
    if (origin && (!allowList || allowList.has(origin))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || 'Content-Type');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return Promise.resolve();
    }
    return next();
  };
}
