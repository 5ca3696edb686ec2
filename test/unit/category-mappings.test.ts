import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, GavelError } from '../../core/api/index.js';
import { CategoryMappings } from '../../core/auction/category-mappings.js';

const exampleMapping = (adServer: string) => fileURLToPath(new URL(`../../scripts/demo-data/category-mappings/${adServer}.json`, import.meta.url));

function expectConfigError(load: () => unknown, ...fragments: string[]): void {
  try {
    load();
  } catch (err) {
    expect(err).to.be.instanceOf(GavelError);
    expect((err as GavelError).code).to.equal(ErrorCode.ConfigInvalid);
    for (const fragment of fragments) expect((err as Error).message).to.include(fragment);
    return;
  }
  expect.fail('expected a GavelError');
}

describe('video category mappings', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-categories-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const writeMapping = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('loads the shipped example mappings, one per ad server', () => {
    const mappings = CategoryMappings.load({ freewheel: exampleMapping('freewheel'), dfp: exampleMapping('dfp') });
    expect(mappings.mappingFor('freewheel', undefined)?.get('IAB17')?.id).to.be.a('string');
    const freewheelSports = mappings.mappingFor('freewheel', undefined)!.get('IAB17')!.id;
    const dfpSports = mappings.mappingFor('dfp', undefined)!.get('IAB17')!.id;
    expect(freewheelSports).to.not.equal(dfpSports);
  });

  it('has no mapping for an ad server the host did not configure', () => {
    const mappings = CategoryMappings.load({ freewheel: exampleMapping('freewheel') });
    expect(mappings.mappingFor('dfp', undefined)).to.equal(undefined);
  });

  it("uses a publisher's own file instead of the host's, for that publisher only", () => {
    const own = writeMapping('publisher.json', { IAB17: { id: 'pub-sports' } });
    const mappings = CategoryMappings.load({ freewheel: exampleMapping('freewheel'), freewheelPublishers: { 'pub-9': own } });
    expect(mappings.mappingFor('freewheel', 'pub-9')!.get('IAB17')).to.deep.equal({ id: 'pub-sports', name: undefined });
    expect(mappings.mappingFor('freewheel', 'pub-9')!.has('IAB1')).to.equal(false);
    expect(mappings.mappingFor('freewheel', 'another')!.get('IAB17')!.id).to.not.equal('pub-sports');
  });

  it('resolves relative paths against the base directory', () => {
    writeMapping('relative.json', { IAB1: { id: '1', name: 'Arts' } });
    const mappings = CategoryMappings.load({ dfp: 'relative.json' }, dir);
    expect(mappings.mappingFor('dfp', undefined)!.get('IAB1')).to.deep.equal({ id: '1', name: 'Arts' });
  });

  it('refuses a missing file, naming the config key', () => {
    expectConfigError(() => CategoryMappings.load({ freewheel: join(dir, 'absent.json') }), 'video.categoryMappings.freewheel', 'absent.json');
  });

  it('refuses a file that is not JSON', () => {
    expectConfigError(() => CategoryMappings.load({ dfp: writeMapping('broken.json', '{"IAB1": ') }), 'video.categoryMappings.dfp', 'cannot be read as JSON');
  });

  it('refuses entries without a string id', () => {
    const path = writeMapping('no-id.json', { IAB1: { name: 'Arts' }, IAB2: { id: 7 } });
    expectConfigError(() => CategoryMappings.load({ freewheelPublishers: { acme: path } }), 'video.categoryMappings.freewheelPublishers.acme', '/IAB1', '/IAB2/id');
  });
});
