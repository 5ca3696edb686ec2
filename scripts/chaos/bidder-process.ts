/**
 * The simulated bidder in a process of its own, for `npm run chaos`: its work (10 MB answers, dripping bodies) then
 * never delays the runner's own clock, which times Gavel's answers. Prints `{"url": ...}` once listening; stops on
 * SIGTERM.
 */
import { startMockBidder } from '../demo/simulated-bidder.js';

const bidder = await startMockBidder();
process.stdout.write(`${JSON.stringify({ url: bidder.url })}\n`);
process.once('SIGTERM', () => {
  void bidder.close().then(() => process.exit(0));
});
