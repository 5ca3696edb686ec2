import { tenths, type AuctionRecord } from './record.js';

export interface InspectorSettings {
  /** Share of auctions recorded, 0 to 1. */
  sampleRate: number;
  /** Most records kept: the oldest goes when a new one comes. */
  maxAuctions: number;
}

/** A line of the inspector's list. */
export interface AuctionSummary {
  id: string;
  auctionId: string;
  endpoint: string;
  account: string;
  receivedAt: number;
  tmax: number;
  outcome: AuctionRecord['outcome'];
  bidders: number;
  bids: number;
  winners: number;
  timeouts: number;
  durationMs?: number;
  replay: boolean;
}

/**
 * The recent auctions the inspector shows: a sample of them (`sampleRate`), at most `maxAuctions`, in memory, each
 * record bounded (RECORD_LIMITS). Auctions replayed from the inspector are always recorded.
 */
export class InspectorStore {
  private readonly records: AuctionRecord[] = [];
  /** The replays under way, by the request object the replay handed to the endpoint. */
  private readonly replays = new WeakMap<object, string>();
  private sequence = 0;

  constructor(
    readonly settings: InspectorSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** The record id this request is recorded under, or undefined when it is not sampled. */
  admit(input: object): string | undefined {
    const replay = this.replays.get(input);
    if (replay !== undefined) return replay;
    const { sampleRate } = this.settings;
    if (sampleRate <= 0 || (sampleRate < 1 && this.random() >= sampleRate)) return undefined;
    return this.nextId();
  }

  /** Marks a request the inspector is about to replay: it is recorded, under the id returned. */
  replaying(input: object): string {
    const id = this.nextId();
    this.replays.set(input, id);
    return id;
  }

  isReplay(input: object): boolean {
    return this.replays.has(input);
  }

  add(record: AuctionRecord): void {
    this.records.push(record);
    if (this.records.length > this.settings.maxAuctions) this.records.splice(0, this.records.length - this.settings.maxAuctions);
  }

  get(id: string): AuctionRecord | undefined {
    return this.records.find((record) => record.id === id);
  }

  /** Newest first. */
  list(): AuctionSummary[] {
    return this.records
      .slice()
      .reverse()
      .map((record) => ({
        id: record.id,
        auctionId: record.auctionId,
        endpoint: record.endpoint,
        account: record.account,
        receivedAt: record.receivedAt,
        tmax: record.tmax,
        outcome: record.outcome,
        bidders: record.bidders.length,
        bids: record.bids.filter((bid) => bid.kept).length,
        winners: record.bids.filter((bid) => bid.winner).length,
        timeouts: Object.keys(record.abandoned).length,
        durationMs: record.finishedAt !== undefined ? tenths(record.finishedAt - record.receivedAt) : undefined,
        replay: record.replay,
      }));
  }

  private nextId(): string {
    this.sequence += 1;
    return `a${this.sequence}`;
  }
}
