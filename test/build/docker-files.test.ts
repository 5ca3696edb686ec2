import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { checkConfig, deepMerge, defaultConfig, envOverrides } from '../../core/config/index.js';

/** The repository root, from dist/test/build. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// These machines cannot run Docker: what can be checked without it is that the files point at what exists and that
// every setting they pass is one Gavel accepts.
describe('scripts/docker', () => {
  const dockerfile = readFileSync(join(ROOT, 'scripts', 'docker', 'Dockerfile'), 'utf8');
  const compose = parse(readFileSync(join(ROOT, 'scripts', 'docker', 'compose.yaml'), 'utf8')) as {
    services: Record<string, { build?: { context: string; dockerfile: string }; environment?: Record<string, string>; command?: string[] }>;
  };

  it('the image runs the CLI the build makes, and copies every folder the build compiles', () => {
    const entrypoint = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(dockerfile)![1]!) as string[];
    expect(entrypoint[0]).to.equal('node');
    expect(existsSync(join(ROOT, entrypoint[1]!))).to.equal(true);
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    for (const folder of new Set(tsconfig.include.map((pattern) => pattern.split('/')[0]))) expect(dockerfile).to.contain(`COPY ${folder} ./${folder}`);
  });

  it('the compose file builds that image and passes only settings the config accepts', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.build) expect(existsSync(join(ROOT, 'scripts', 'docker', service.build.context, service.build.dockerfile)), name).to.equal(true);
      const overrides = envOverrides(service.environment ?? {});
      expect(() => checkConfig(deepMerge(structuredClone(defaultConfig) as unknown as Record<string, unknown>, overrides), name)).to.not.throw();
    }
    expect(compose.services.migrate!.command).to.deep.equal(['db', 'migrate']);
  });
});
