import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for browser clients (reference-behaviour section 11): Prebid.js sends credentials, so the origin is echoed
 * (never `*`), credentials allowed, and preflights answered. An allow-list, when configured, limits the echo.
 * Returns a function that sets the headers on an exchange; it runs on the raw request and response before any
 * route is chosen, so both lanes of the edge, and their errors, carry the same headers.
 */
export function corsHandler(allowedOrigins: string[]): (req: IncomingMessage, res: ServerResponse) => void {
  const allowList = allowedOrigins.length > 0 ? new Set(allowedOrigins) : undefined;
  return (req, res) => {
    const origin = req.headers.origin;
    // Set, not appended: this runs before any other header is set, so no Vary exists yet.
    res.setHeader('Vary', 'Origin');
    if (origin && (!allowList || allowList.has(origin))) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
  };
}

/** Answers OPTIONS on a known path: a CORS preflight, and the path's `Allow` for any other client. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  res.setHeader('Access-Control-Allow-Methods', allow);
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] || 'Content-Type');
  res.setHeader('Access-Control-Max-Age', '600');
  res.statusCode = 204;
  res.end();
}
