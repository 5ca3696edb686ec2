import type { RequestData, ResponseData } from '../../core/api/index.js';
import { UndiciBidderTransport, type BidderTransport, type SendOptions } from '../../core/bidders/transport.js';

/**
 * A bidder transport for tests: records every call the core lets out, then delivers it to a local mock bidder with
 * the same path and query. Bidders can then use realistic hostnames (`us-east.bidder.example`) while the test sees
 * both where each call was addressed and what the bidder received.
 */
export class RecordingTransport implements BidderTransport {
  readonly sent: string[] = [];
  private readonly real = new UndiciBidderTransport({ connectionsPerHost: 4, keepAliveTimeoutMs: 1_000 }, 1_000_000);

  constructor(private readonly mockBidderUrl: string) {}

  send(call: RequestData, bodyText: string | undefined, options: SendOptions): Promise<ResponseData> {
    this.sent.push(call.uri);
    const addressed = new URL(call.uri);
    return this.real.send({ ...call, uri: `${this.mockBidderUrl}${addressed.pathname}${addressed.search}` }, bodyText, options);
  }

  close(): Promise<void> {
    return this.real.close();
  }
}
