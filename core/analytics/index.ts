import type { AnalyticsRecord, AnalyticsReporter, AuctionRecord, EndpointName, PluginLogger } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { NotificationEvent } from '../events/event-endpoint.js';
import type { EndpointHandler, Route } from '../http/routes.js';

/**
 * Decides what one analytics module may see of one transaction: the record itself, a scrubbed copy, or undefined
 * when the module must not see it. The default lets every module see everything; the privacy service replaces it
 * (`container.rebind(Tokens.AnalyticsGate)`) to apply the `reportAnalytics` activity control and TCF purpose 7 per
 * module. It runs off the request's path, once per module and transaction; it must not throw (a throw drops the
 * record for that module and is logged).
 */
export type AnalyticsGate = (record: AnalyticsRecord, module: string) => AnalyticsRecord | undefined;

/** The default gate: every enabled module sees every transaction. */
export const allowAllAnalytics: AnalyticsGate = (record) => record;

/** An enabled module's reporter. */
export interface NamedReporter {
  code: string;
  reporter: AnalyticsReporter;
}

/**
 * What an endpoint that runs an auction tells analytics about it, on `EndpointRequest.transaction`: the request as
 * auctioned and the settled context. Absent when no analytics module is enabled.
 */
export interface TransactionNote {
  request?: AuctionRecord['request'];
  account?: AuctionRecord['account'];
  accountId?: string;
  privacy?: AuctionRecord['privacy'];
}

/**
 * Hands every transaction to every enabled analytics module, after its answer was written and off its path:
 * records are queued and delivered on a later turn of the event loop (`setImmediate`), in one pass per turn, each
 * through the gate. A module that throws is logged and never affects another module or the answer.
 */
export class AnalyticsService {
  private pending: AnalyticsRecord[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly reporters: readonly NamedReporter[],
    private readonly gate: AnalyticsGate,
    private readonly logger: PluginLogger,
  ) {}

  /** True when at least one module reports: with none, the endpoints are not even wrapped. */
  get enabled(): boolean {
    return this.reporters.length > 0;
  }

  /** Queues a record for delivery; returns at once. */
  report(record: AnalyticsRecord): void {
    if (!this.enabled || this.closed) return;
    this.pending.push(record);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.deliver());
  }

  private deliver(): void {
    this.scheduled = false;
    const records = this.pending;
    this.pending = [];
    for (const record of records) {
      if ('response' in record && typeof record.response === 'string') record.response = asJson(record.response);
      for (const { code, reporter } of this.reporters) {
        if (switchedOffFor(record, code)) continue;
        try {
          const view = this.gate(record, code);
          if (view !== undefined) reporter.report(view);
        } catch (err) {
          this.logger.error({ err, module: code, type: record.type }, 'analytics module failed to take a record');
        }
      }
    }
  }

  /** Delivers what is queued, then lets every module send what it still holds, within `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.deliver();
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const closing = Promise.allSettled(this.reporters.map(({ reporter }) => reporter.close?.()));
    await Promise.race([closing, deadline]);
    clearTimeout(timer);
  }

  /** The consumer `GET /event` hands accepted events to (`Tokens.EventConsumer`). */
  eventConsumer(): (event: NotificationEvent) => void {
    return (event) => this.report({ type: 'event', receivedAt: Date.now(), accountId: event.account.id, event: event.request, account: event.account });
  }

  /**
   * The routing table with the transactions analytics reports wrapped: each answer of those endpoints becomes a
   * record once the handler has returned it (the edge writes it in the same turn; delivery comes on a later one).
   * Unchanged when no module reports.
   */
  observe(routes: Route[]): Route[] {
    if (!this.enabled) return routes;
    return routes.map((route) => {
      const type = route.lane === 'fast' ? REPORTED_PATHS[`${route.method} ${route.path}`] : undefined;
      return type === undefined || route.lane !== 'fast' ? route : { ...route, handler: this.reporting(type, route.handler) };
    });
  }

  private reporting(type: ReportedType, handler: EndpointHandler): EndpointHandler {
    return async (input) => {
      const note: TransactionNote = {};
      input.transaction = note;
      const answer = await handler(input);
      this.report(recordOf(type, input, note, answer));
      return answer;
    };
  }
}

/** An answer written as JSON text (the AMP endpoint encodes its own) as the object it is; other text as it is. */
function asJson(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The account switched this module off: `analytics.modules.<code>.enabled: false` in the account (Prebid Server
 * Java's account `analytics.modules` section). Read from the records that carry their account (auction, AMP, video,
 * `/event`); cookie sync and setuid load no account.
 */
function switchedOffFor(record: AnalyticsRecord, code: string): boolean {
  const account = 'account' in record ? record.account : undefined;
  return account?.analytics?.modules?.[code]?.enabled === false;
}

type ReportedType = EndpointName | 'cookie-sync' | 'setuid';

/** The endpoints whose transactions analytics reports (`/event` reports through the event consumer). */
export const REPORTED_PATHS: Readonly<Record<string, ReportedType>> = {
  'POST /openrtb2/auction': 'auction',
  'GET /openrtb2/amp': 'amp',
  'POST /openrtb2/video': 'video',
  'POST /cookie_sync': 'cookie-sync',
  'GET /setuid': 'setuid',
};

function recordOf(type: ReportedType, input: EndpointRequest, note: TransactionNote, answer: EndpointResponse): AnalyticsRecord {
  const base = { receivedAt: input.receivedAt, requestId: input.requestId, status: answer.status };
  if (type === 'cookie-sync') {
    const account = input.body?.account;
    return { ...base, type, accountId: typeof account === 'string' && account !== '' ? account : undefined, request: input.body, response: answer.body };
  }
  if (type === 'setuid') {
    const { bidder, uid, account } = input.query;
    return { ...base, type, bidder, uid, accountId: account || undefined, query: input.query };
  }
  return {
    ...base,
    type,
    accountId: note.accountId || undefined,
    request: note.request,
    response: answer.body,
    account: note.account,
    privacy: note.privacy,
  };
}
