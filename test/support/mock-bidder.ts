/** Tests use the same simulated OpenRTB bidder as `npm run demo`. */
export { startMockBidder, type MockBidder } from '../../scripts/demo/simulated-bidder.js';
