/**
 * Config mistakes a newcomer makes are caught by `gavel validate-config` and at boot, each naming its key: refused
 * (exit 1, a coded error) when the setting cannot work, warned about (exit 0, a line on stderr; logged at warn at
 * boot) when it boots but most likely does not do what the host meant.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../../core/api/index.js';
import { loadConfig } from '../../core/config/index.js';
import { writeModulePackage } from '../support/module-package.js';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));

describe('config mistakes', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-config-mistakes-'));
    // A third-party module with no config schema, as an npm package folder.
    writeModulePackage(dir, 'acme-quiet', "{ kind: 'module', code: 'acme.quiet', version: '1.0.0', sdkVersion: '2.0.0', stages: ['auction-response'], create: () => ({}) }");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function validate(yaml: string) {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    return spawnSync(process.execPath, [cli, 'validate-config', file], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
  }

  describe('refused', () => {
    it('a bidder the config declares without an endpoint', () => {
      const result = validate('bidders:\n  alpha: { adapter: ortb }\n');
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain(ErrorCode.BidderConfigInvalid).and.contain('bidders.alpha.endpoint');
    });

    it('a bidder switched on whose adapter ships no endpoint', () => {
      const result = validate('bidders:\n  ix: { enabled: true }\n');
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain(ErrorCode.BidderConfigInvalid).and.contain('bidders.ix.endpoint');
    });

    it("a module's bad config, naming each key in full", () => {
      const result = validate('modules:\n  gavel.bid-cache:\n    config:\n      defaultTtlSeconds: { banner: -1, vidoe: 30 }\n');
      expect(result.status).to.equal(1);
      expect(result.stderr)
        .to.contain(ErrorCode.ConfigInvalid)
        .and.contain('"modules.gavel.bid-cache.config.defaultTtlSeconds.banner" must be >= 0')
        .and.contain('unknown key "modules.gavel.bid-cache.config.defaultTtlSeconds.vidoe"');
    });

    it('a missing required key, by its full name', () => {
      const plan = { endpoints: { '/openrtb2/auction': { stages: { entrypoint: { groups: [{ hook_sequence: [{ module_code: 'acme.quiet' }] }] } } } } };
      expect(() => loadConfig({ overrides: { hooks: { hostExecutionPlan: plan } }, env: {} })).to.throw(
        /"hooks\.hostExecutionPlan\.endpoints\.\/openrtb2\/auction\.stages\.entrypoint\.groups\.0\.hook_sequence\.0\.hook_impl_code" is required/,
      );
    });
  });

  describe('warned about, still valid', () => {
    it('config for a module that declares no config schema', () => {
      const result = validate('plugins: [./acme-quiet]\nmodules:\n  acme.quiet: { enabled: true, config: { mode: strict } }\n');
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.contain('valid (1 warning)');
      expect(result.stderr).to.contain('warning: modules.acme.quiet.config: module acme.quiet declares no config schema');
    });

    it('a third-party module configured but not switched on', () => {
      const result = validate('plugins: [./acme-quiet]\nmodules:\n  acme.quiet: { config: {} }\n');
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stderr).to.contain('warning: modules.acme.quiet.enabled: module acme.quiet is configured but not switched on');
    });

    it('nothing for a module switched off on purpose, or a clean config', () => {
      expect(validate('plugins: [./acme-quiet]\nmodules:\n  acme.quiet: { enabled: false }\n').stderr).to.equal('');
      const clean = validate('bidders:\n  alpha: { adapter: ortb, endpoint: "http://127.0.0.1:1/bid" }\n');
      expect(clean.status).to.equal(0);
      expect(clean.stderr).to.equal('');
      expect(clean.stdout).to.match(/: valid\n$/);
    });
  });

  describe('server.externalUrl', () => {
    it('follows the listen port when the host sets none', () => {
      expect(loadConfig({ env: {} }).server.externalUrl).to.equal('http://localhost:8000');
      expect(loadConfig({ overrides: { server: { port: 9100 } }, env: {} }).server.externalUrl).to.equal('http://localhost:9100');
      expect(loadConfig({ env: { GAVEL_SERVER__PORT: '9200' } }).server.externalUrl).to.equal('http://localhost:9200');
    });

    it('is the host’s when set', () => {
      expect(loadConfig({ overrides: { server: { port: 9100, externalUrl: 'https://gavel.example' } }, env: {} }).server.externalUrl).to.equal('https://gavel.example');
    });
  });

  it('gavel plugins lists the bidders the config declares, with adapter, endpoint host and status', () => {
    const file = join(dir, 'bidders.yaml');
    writeFileSync(file, 'bidders:\n  alpha: { adapter: ortb, endpoint: "https://rtb.alpha.example/bid" }\n  resting: { aliasOf: appnexus, enabled: false }\n');
    const result = spawnSync(process.execPath, [cli, 'plugins', '--config', file], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/^BIDDER\s+ADAPTER\s+ENDPOINT HOST\s+STATUS$/m);
    expect(result.stdout).to.match(/^alpha\s+ortb\s+rtb\.alpha\.example\s+enabled$/m);
    expect(result.stdout).to.match(/^resting\s+appnexus\s+\S+\s+disabled$/m);
  });
});
