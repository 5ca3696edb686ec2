import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envOverrides, loadConfig } from '../../core/config/index.js';

function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gavel-config-')), 'gavel.yaml');
  writeFileSync(file, text);
  return file;
}

describe('configuration', () => {
  it('runs on the embedded defaults with no file', () => {
    const config = loadConfig({ env: {} });
    expect(config.server.port).to.equal(8000);
    expect(config.server.maxRequestBytes).to.equal(262144);
    expect(config.auction.defaultTmaxMs).to.equal(1000);
  });

  it('merges a YAML file over the defaults', () => {
    const config = loadConfig({ file: configFile('server:\n  port: 9100\nbidders:\n  alpha: { adapter: ortb, endpoint: "http://127.0.0.1:1/x" }\n'), env: {} });
    expect(config.server.port).to.equal(9100);
    expect(config.server.maxRequestBytes).to.equal(262144);
    expect(config.bidders.alpha!.adapter).to.equal('ortb');
  });

  it('lets GAVEL_<PATH> variables override any key, matching key case loosely', () => {
    const config = loadConfig({ env: { GAVEL_SERVER__PORT: '8001', GAVEL_SERVER__MAXREQUESTBYTES: '5000', GAVEL_BIDDERS__ALPHA__ENABLED: 'false', GAVEL_PLUGINS: '["@acme/x"]' } });
    expect(config.server.port).to.equal(8001);
    expect(config.server.maxRequestBytes).to.equal(5000);
    expect(config.bidders.alpha!.enabled).to.equal(false);
    expect(config.plugins).to.deep.equal(['@acme/x']);
  });

  it('names an unknown key, in a file or a variable, with a stable code', () => {
    expect(() => loadConfig({ file: configFile('server:\n  prot: 1\n'), env: {} }))
      .to.throw(/unknown key "server\.prot"/)
      .with.property('code', 'GAVEL_E_CONFIG_INVALID');
    expect(() => envOverrides({ GAVEL_SERVER__PROT: '1' })).to.throw(/GAVEL_SERVER__PROT.*server\.prot/);
  });

  it('names an unknown hook stage', () => {
    const file = configFile('hooks:\n  hostExecutionPlan:\n    endpoints:\n      /openrtb2/auction:\n        stages:\n          before-everything: {}\n');
    expect(() => loadConfig({ file, env: {} })).to.throw(/hooks\.hostExecutionPlan\.endpoints\.\/openrtb2\/auction\.stages\.before-everything.*unknown hook stage/);
  });

  it('names a value of the wrong type', () => {
    expect(() => loadConfig({ env: { GAVEL_SERVER__PORT: 'eighty' } })).to.throw(/GAVEL_SERVER__PORT must be a number/);
    expect(() => loadConfig({ file: configFile('auction:\n  defaultTmaxMs: -5\n'), env: {} })).to.throw(/auction\.defaultTmaxMs/);
  });
});
