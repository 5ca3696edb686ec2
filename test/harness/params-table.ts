import type { AnySchema, ValidateFunction } from 'ajv';
import { expect } from 'chai';
import type { AdapterManifest } from '../../core/api/index.js';
import { pluginSchemaAjv } from '../../core/plugins/discover.js';

/** One row of a params table: what the case is about (it names the test), and the params to validate. */
export type ParamsCase = readonly [label: string, params: unknown];

export interface ParamsTable {
  valid: readonly ParamsCase[];
  invalid: readonly ParamsCase[];
}

/**
 * Declares a `params schema` suite for an adapter: one test per row, each valid row accepted and each invalid row
 * rejected by the adapter's own schema. The schema is compiled as the host compiles plugin schemas
 * (core/plugins/discover.ts), so the table checks what the host will enforce.
 */
export function describeParamsTable(manifest: AdapterManifest, table: ParamsTable): void {
  describe('params schema', () => {
    let validate: ValidateFunction;
    before(() => {
      expect(manifest.paramsSchema, `${manifest.name} declares its own params schema`).to.be.an('object');
      validate = pluginSchemaAjv().compile(manifest.paramsSchema as AnySchema);
    });

    for (const [label, params] of table.valid) {
      it(`accepts ${label}`, () => expect(validate(params), JSON.stringify(validate.errors)).to.equal(true));
    }
    for (const [label, params] of table.invalid) {
      it(`rejects ${label}`, () => expect(validate(params)).to.equal(false));
    }
  });
}
