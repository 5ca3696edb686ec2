import type { Middleware } from 'koa';
import { compile, match, type MatchFunction } from 'path-to-regexp';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import { HttpError } from './body.js';
import { ErrorCode } from '../api/index.js';

export type EndpointHandler = (request: EndpointRequest) => Promise<EndpointResponse>;

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Served on node's request and response: no Koa context is built. POST routes receive the parsed JSON body. */
export interface FastRoute {
  method: RouteMethod;
  /** A path-to-regexp pattern, lower case, no trailing slash: `/status`, `/info/bidders/:name`. */
  path: string;
  lane: 'fast';
  handler: EndpointHandler;
}

/** Served by Koa through @koa/router, for handlers written against a Koa context (the bid cache). */
export interface KoaRoute {
  method: RouteMethod;
  path: string;
  lane: 'koa';
  handler: Middleware;
}

/** One row of the public routing table. */
export type Route = FastRoute | KoaRoute;

/** Fast-lane rows for a map of paths to handlers, all under one method. */
export function fastRoutes(method: RouteMethod, handlers: Record<string, EndpointHandler>): FastRoute[] {
  return Object.entries(handlers).map(([path, handler]) => ({ method, path, lane: 'fast', handler }));
}


/** Everything one path pattern serves. */
export interface PathRoutes {
  /** The pattern as declared: the metric label, and the path handlers see for a fixed path. */
  readonly pattern: string;
  /** By request method; HEAD maps to the GET route. */
  readonly methods: ReadonlyMap<string, Route>;
  /** The `Allow` header: the declared methods, HEAD with GET, and OPTIONS. */
  readonly allow: string;
  /** The 405 for any other method, made once. */
  readonly notAllowed: HttpError;
}

/** A request path resolved to its routes. */
export interface PathMatch {
  readonly routes: PathRoutes;
  /** The path in its declared spelling: literal segments as the pattern has them, parameters as the client sent them. */
  readonly path: string;
  /** Decoded parameter values (`{ name: 'appnexus' }`). */
  readonly params: Readonly<Record<string, string>>;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
/** The order methods are listed in `Allow`. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export const NOT_FOUND = new HttpError(404, 'Not found: Gavel serves no endpoint at this path (the endpoints are listed in its README)', ErrorCode.RouteNotFound);

/** The key of a path under the one rule: letter case ignored, one trailing slash ignored. */
function keyOf(path: string): string {
  const trimmed = path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */ ? path.slice(0, -1) : path;
  return trimmed.toLowerCase();
}

interface ParamPattern {
  routes: PathRoutes;
  match: MatchFunction<Record<string, string>>;
  build: (params: Record<string, string>) => string;
}

/**
 * The public routing table, compiled once at boot. One rule for every path, whichever lane serves it: letter case
 * is ignored, a single trailing slash is ignored, a known path asked with a method it does not serve is a 405 with
 * `Allow`, HEAD is served wherever GET is, and anything else is a 404.
 *
 * Fixed paths are found with one map lookup on the path as sent (the common case, which costs no string work),
 * then once more on its normalised key; patterns with parameters are tried after, in declaration order, by
 * path-to-regexp, the matcher @koa/router itself uses.
 */
export class RouteTable {
  readonly paths: readonly PathRoutes[];
  private readonly fixed = new Map<string, PathMatch>();
  private readonly patterns: ParamPattern[] = [];

  constructor(routes: readonly Route[]) {
    const grouped = new Map<string, { pattern: string; methods: Map<string, Route> }>();
    for (const route of routes) {
      if (!route.path.startsWith('/') || (route.path.length > 1 && route.path.endsWith('/'))) {
        throw new Error(`route ${route.method} ${route.path}: a pattern starts with "/" and has no trailing slash`);
      }
      const key = keyOf(route.path);
      let group = grouped.get(key);
      if (!group) grouped.set(key, (group = { pattern: route.path, methods: new Map() }));
      if (group.methods.has(route.method)) throw new Error(`route ${route.method} ${route.path} is declared twice`);
      group.methods.set(route.method, route);
      if (route.method === 'GET') group.methods.set('HEAD', route);
    }
    const paths: PathRoutes[] = [];
    for (const [key, { pattern, methods }] of grouped) {
      const allow = METHOD_ORDER.filter((method) => methods.has(method) || method === 'OPTIONS').join(', ');
      const notAllowed = new HttpError(405, `Method not allowed: ${pattern} accepts ${allow}`, ErrorCode.MethodNotAllowed, { allow });
      const entry: PathRoutes = { pattern, methods, allow, notAllowed };
      paths.push(entry);
      if (/[*{}()]/.test(pattern)) throw new Error(`route ${pattern}: only :name parameters are supported`);
      if (pattern.includes(':')) {
        this.patterns.push({ routes: entry, match: match(pattern, { sensitive: false, trailing: false }), build: compile(pattern) });
      } else {
        const found: PathMatch = { routes: entry, path: pattern, params: NO_PARAMS };
        this.fixed.set(pattern, found);
        this.fixed.set(key, found);
      }
    }
    this.paths = paths;
  }

  /**
   * The routes of a request path (without its query string), or undefined when no pattern matches. Throws a 400
   * HttpError when a parameter is not valid percent-encoding.
   */
  find(path: string): PathMatch | undefined {
    const exact = this.fixed.get(path);
    if (exact !== undefined) return exact;
    if (path.length > 1 && path.charCodeAt(path.length - 1) === 47) path = path.slice(0, -1);
    const found = this.fixed.get(path.toLowerCase());
    if (found !== undefined || this.patterns.length === 0) return found;
    for (const pattern of this.patterns) {
      let matched;
      try {
        matched = pattern.match(path);
      } catch {
        throw new HttpError(400, 'Invalid request: the path is not valid percent-encoding', ErrorCode.RequestMalformed);
      }
      if (matched) return { routes: pattern.routes, path: pattern.build(matched.params), params: matched.params };
    }
    return undefined;
  }
}
