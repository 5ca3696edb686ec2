import { expect } from 'chai';
import { parseMultiSize } from '../../core/amp/index.js';
import { AmpTestServer, storedAmpRequest } from './support.js';

/**
 * Spec 4.3's size table, row by row, seen where it matters: the `banner.format` the bidder receives. The stored
 * request offers 300x250 and 320x100.
 */
describe('GET /openrtb2/amp: amp-ad sizes become imp[0].banner.format', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({
      stored: {
        banner: storedAmpRequest(),
        video: storedAmpRequest({}, { banner: undefined, video: { mimes: ['video/mp4'], w: 640, h: 480 } }),
      },
    });
  });
  after(() => server.close());

  async function formatsFor(query: string): Promise<unknown> {
    const answer = await server.get(`tag_id=banner&${query}`);
    expect(answer.status, answer.text).to.equal(200);
    return server.lastBidderRequest().imp[0].banner.format;
  }

  it('row 1: ow and oh give one format, even when w and h are present too', async () => {
    expect(await formatsFor('ow=728&oh=90&w=300&h=600')).to.deep.equal([{ w: 728, h: 90 }]);
  });

  it('row 2: ow and h give one format (w = ow), ahead of w and h', async () => {
    expect(await formatsFor('ow=728&h=90&w=300')).to.deep.equal([{ w: 728, h: 90 }]);
  });

  it('row 3: oh and w give one format (h = oh), ahead of w and h', async () => {
    expect(await formatsFor('oh=90&w=728&h=600')).to.deep.equal([{ w: 728, h: 90 }]);
  });

  it('row 4: ms gives one format per size it lists', async () => {
    expect(await formatsFor('ms=320x50,300x50')).to.deep.equal([{ w: 320, h: 50 }, { w: 300, h: 50 }]);
  });

  it('row 5: w and h give one format', async () => {
    expect(await formatsFor('w=300&h=600')).to.deep.equal([{ w: 300, h: 600 }]);
  });

  it('rows 4 and 5 together: the w x h format comes first and the ms sizes follow it', async () => {
    expect(await formatsFor('w=300&h=600&ms=320x50,300x50')).to.deep.equal([{ w: 300, h: 600 }, { w: 320, h: 50 }, { w: 300, h: 50 }]);
  });

  it('row 6: only w overrides the width of every stored format', async () => {
    expect(await formatsFor('w=400')).to.deep.equal([{ w: 400, h: 250 }, { w: 400, h: 100 }]);
  });

  it('row 6: only h overrides the height of every stored format', async () => {
    expect(await formatsFor('h=90')).to.deep.equal([{ w: 300, h: 90 }, { w: 320, h: 90 }]);
  });

  it('row 7: no size params leave the stored formats as they are', async () => {
    expect(await formatsFor('')).to.deep.equal([{ w: 300, h: 250 }, { w: 320, h: 100 }]);
  });

  it('a malformed ms is discarded whole, leaving the stored formats', async () => {
    expect(await formatsFor('ms=320x50,big')).to.deep.equal([{ w: 300, h: 250 }, { w: 320, h: 100 }]);
    expect(await formatsFor('ms=0x0')).to.deep.equal([{ w: 300, h: 250 }, { w: 320, h: 100 }]);
  });

  it('a malformed ms does not stop the other size params from applying', async () => {
    expect(await formatsFor('ms=320by50&w=728&h=90')).to.deep.equal([{ w: 728, h: 90 }]);
  });

  it('unfilled ATTR() macros and zero sizes count as absent', async () => {
    expect(await formatsFor('w=ATTR(width)&h=0&ms=ATTR(data-multi-size)')).to.deep.equal([{ w: 300, h: 250 }, { w: 320, h: 100 }]);
  });

  it('leaves an imp without a banner alone', async () => {
    const answer = await server.get('tag_id=video&w=300&h=250');
    expect(answer.status, answer.text).to.equal(200);
    const imp = server.lastBidderRequest().imp[0];
    expect(imp.banner).to.equal(undefined);
    expect(imp.video).to.include({ w: 640, h: 480 });
  });
});

describe('parseMultiSize', () => {
  it('reads comma-separated WxH sizes in order', () => {
    expect(parseMultiSize('320x50,300x50, 728x90')).to.deep.equal([{ w: 320, h: 50 }, { w: 300, h: 50 }, { w: 728, h: 90 }]);
  });

  it('discards the whole list for any malformed entry, or a 0x0 one', () => {
    for (const bad of ['320x50,', '320x50,300', 'x50', '320X50', '320x50x2', '0x0', '320x50,0x0', '1.5x2']) {
      expect(parseMultiSize(bad), bad).to.deep.equal([]);
    }
  });

  it("keeps a size with one zero side without that side, and a negative side for validation, as Prebid Server does", () => {
    expect(parseMultiSize('320x0,0x50')).to.deep.equal([{ w: 320 }, { h: 50 }]);
    expect(parseMultiSize('320x-50')).to.deep.equal([{ w: 320, h: -50 }]);
  });

  it('is empty when absent or blank', () => {
    expect(parseMultiSize(undefined)).to.deep.equal([]);
    expect(parseMultiSize(' ')).to.deep.equal([]);
  });
});
