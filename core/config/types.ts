import type { Stage } from '../api/index.js';

export interface HookRefConfig { module: string; hook: string }
export interface HookGroupConfig { timeoutMs?: number; hooks: HookRefConfig[] }
export type StagePlanConfig = Partial<Record<Stage, HookGroupConfig[]>>;

export interface BidderEntryConfig {
  adapter?: string;
  aliasOf?: string;
  endpoint?: string;
  enabled?: boolean;
  ortbVersion?: '2.5' | '2.6';
  extra?: Record<string, unknown>;
}

export interface GavelConfig {
  server: {
    port: number; host: string; maxRequestBytes: number; workers: number; drainTimeoutMs: number;
    externalUrl: string;
  };
  logging: { level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent' };
  auction: { defaultTmaxMs: number; maxTmaxMs: number; networkBufferMs: number; responsePrepMs: number; minBidderTimeMs: number; currency: string; defaultNamespace: 'svc' | 'prebid' };
  httpClient: { connectionsPerHost: number; keepAliveTimeoutMs: number; maxResponseBytes: number };
  bidders: Record<string, BidderEntryConfig>;
  plugins: string[];
  modules: Record<string, { enabled?: boolean; config?: Record<string, unknown> }>;
  hooks: { defaultGroupTimeoutMs: number; plans: Partial<Record<'auction' | 'amp' | 'video', StagePlanConfig>> };
  storedRequests: {
    filesystem?: { dir?: string };
    postgres?: { url?: string; requestsQuery?: string; impsQuery?: string; accountsQuery?: string };
    http?: { url?: string };
    cacheTtlSeconds: number;
    cacheMaxEntries: number;
  };
  cache: {
    url?: string;
    publicUrl?: string;
    redis?: { url: string; keyPrefix?: string };
    memory?: { maxBytes?: number };
    limits?: { maxValueBytes?: number; maxPutsPerRequest?: number; maxTtlSeconds?: number; defaultTtlSeconds?: number };
  };
  video: {
    categoryMappings: { freewheel?: string; dfp?: string; freewheelPublishers?: Record<string, string>; dfpPublishers?: Record<string, string> };
    requireStoredRequest: boolean;
    maxImpsPerRequest: number;
  };
  amp: { defaultTimeoutMs: number; timeoutAdjustmentMs: number };
  /** Host currency rates: pinned in config and/or fetched from a Prebid currency file. */
  currency: {
    rates: Record<string, Record<string, number>>;
    url?: string;
    refreshSeconds: number;
    staleAfterSeconds: number;
    timeoutMs: number;
  };
  userSync: {
    cookieTtlDays: number;
    uidTtlDays: number;
    maxCookieBytes: number;
    cookieDomain?: string;
    optOutCookie: { name: string; value?: string };
  };
  cors: { allowedOrigins: string[] };
  /** The operators' port: Prometheus metrics and the health check, kept off the public listener. */
  admin: { enabled: boolean; host: string; port: number };
}

/** What a config file or env override may say: any subset of the full config. */
export type PartialConfig = { [K in keyof GavelConfig]?: unknown };
