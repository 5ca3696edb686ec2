import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { distRoot, pluginSchemaAjv } from '../discover.js';
import { schemaFailureText } from '../schema-errors.js';

/** A built-in adapter's params schema, as the registry loads it. */
function paramsSchema(adapter: string): object {
  return JSON.parse(readFileSync(join(distRoot, '..', 'adapters', adapter, 'params.schema.json'), 'utf8')) as object;
}

describe('schemaFailureText: why params fail, in gojsonschema words', () => {
  it('passes valid values with no text', () => {
    expect(schemaFailureText(paramsSchema('appnexus'), { placementId: 12 })).to.equal('');
    expect(schemaFailureText(paramsSchema('rubicon'), { accountId: '1', siteId: 2, zoneId: '0' })).to.equal('');
  });

  it('names a type mismatch by field, with the type list as gojsonschema prints it', () => {
    expect(schemaFailureText(paramsSchema('appnexus'), { placementId: true })).to.equal('placementId: Invalid type. Expected: [integer,string], given: boolean');
    expect(schemaFailureText({ type: 'object' }, 'x')).to.equal('(root): Invalid type. Expected: object, given: string');
    expect(schemaFailureText({ type: 'integer' }, 1.5)).to.equal('(root): Invalid type. Expected: integer, given: number');
    expect(schemaFailureText({ type: 'number' }, 2)).to.equal('');
    expect(schemaFailureText({ type: 'string' }, null)).to.equal('(root): Invalid type. Expected: string, given: null');
  });

  it('reports a failed oneOf, then the errors of its closest branch (the first on a tie)', () => {
    expect(schemaFailureText(paramsSchema('appnexus'), {})).to.equal(
      '(root): Must validate one and only one schema (oneOf)(root): Must validate one and only one schema (oneOf)(root): placementId is required',
    );
    // member is there: the inventory-code branch comes closer than the placement one.
    expect(schemaFailureText(paramsSchema('appnexus'), { member: 9 })).to.equal(
      '(root): Must validate one and only one schema (oneOf)(root): Must validate one and only one schema (oneOf)(root): invCode is required',
    );
    // Both branches hold: oneOf wants exactly one.
    expect(schemaFailureText({ oneOf: [{ type: 'integer' }, { type: 'number' }] }, 3)).to.equal('(root): Must validate one and only one schema (oneOf)');
  });

  it('reports a failed anyOf with its closest branch, and not, allOf and dependencies', () => {
    expect(schemaFailureText({ anyOf: [{ required: ['a', 'b'] }, { required: ['c'] }] }, { a: 1 })).to.equal('(root): Must validate at least one schema (anyOf)(root): b is required');
    expect(schemaFailureText(paramsSchema('appnexus'), { placementId: 1, invCode: 'x', member: 2 })).to.equal(
      '(root): Must validate one and only one schema (oneOf)(root): Must not validate the schema (not)',
    );
    expect(schemaFailureText({ allOf: [{ minimum: 5 }, { maximum: 1 }] }, 3)).to.equal('(root): Must be greater than or equal to 5(root): Must be less than or equal to 1(root): Must validate all the schemas (allOf)');
    expect(schemaFailureText({ dependencies: { a: ['b'] } }, { a: 1 })).to.equal('(root): Has a dependency on b');
    expect(schemaFailureText(paramsSchema('smartadserver'), { networkId: 1, siteId: 2 })).to.equal('(root): pageId is required(root): formatId is required');
  });

  it('checks strings by length, pattern and format, numbers by their bounds, and joins errors with no separator', () => {
    expect(schemaFailureText(paramsSchema('openx'), { unit: '12a', delDomain: 'bad_host.com', platform: 'nope', customFloor: -1 })).to.equal(
      "unit: Does not match pattern '^[0-9]+$'delDomain: Does not match format 'hostname'platform: Does not match format 'uuid'customFloor: Must be greater than or equal to 0",
    );
    expect(schemaFailureText(paramsSchema('rubicon'), { accountId: 1, siteId: 'x2', zoneId: 0 })).to.equal("siteId: Does not match pattern '^\\d+$'zoneId: Must be greater than or equal to 1");
    expect(schemaFailureText({ type: 'string', minLength: 2, maxLength: 3 }, 'é')).to.equal('(root): String length must be greater than or equal to 2');
    expect(schemaFailureText({ maxLength: 3 }, 'abcd')).to.equal('(root): String length must be less than or equal to 3');
    expect(schemaFailureText({ exclusiveMinimum: true, minimum: 0 }, 0)).to.equal('(root): Must be greater than 0');
    expect(schemaFailureText({ exclusiveMaximum: true, maximum: 1.5 }, 2)).to.equal('(root): Must be less than 1.5');
  });

  it('walks arrays (items before their count), enums and additional properties', () => {
    expect(schemaFailureText({ type: 'array', minItems: 3, items: { type: 'integer' } }, [1, 'a'])).to.equal('1: Invalid type. Expected: integer, given: string(root): Array must have at least 3 items');
    expect(schemaFailureText({ maxItems: 1, uniqueItems: true }, [1, 1, 1])).to.equal('(root): Array must have at most 1 items(root): array items[0,1] must be unique(root): array items[1,2] must be unique');
    expect(schemaFailureText(paramsSchema('appnexus'), { placementId: 1, position: 'left' })).to.equal('position: position must be one of the following: "above", "below"');
    expect(schemaFailureText({ properties: { a: {} }, additionalProperties: false }, { a: 1, b: 2 })).to.equal('(root): Additional property b is not allowed');
    expect(schemaFailureText({ additionalProperties: { type: 'array' } }, { k: 'v' })).to.equal('k: Invalid type. Expected: array, given: string');
    expect(schemaFailureText({ properties: { a: { properties: { b: { type: 'string' } } } } }, { a: { b: 1 } })).to.equal('a.b: Invalid type. Expected: string, given: integer');
  });

  it('follows local $refs, and gives no text for a $ref that loops without descending into the value', () => {
    const schema = { properties: { size: { $ref: '#/definitions/size' } }, definitions: { size: { type: 'array', maxItems: 2 } } };
    expect(schemaFailureText(schema, { size: [1, 2, 3] })).to.equal('size: Array must have at most 2 items');
    const tree = { type: 'object', properties: { child: { $ref: '#' }, name: { type: 'string' } } };
    expect(schemaFailureText(tree, { child: { child: { name: 1 } } })).to.equal('child.child.name: Invalid type. Expected: string, given: integer');
    expect(schemaFailureText({ anyOf: [{ $ref: '#' }, { type: 'string' }] }, 1)).to.equal('');
  });

  it('checks the formats as gojsonschema does, and the host compiles plugin schemas with the same checks', () => {
    const ajv = pluginSchemaAjv();
    const hostname = ajv.compile({ type: 'string', format: 'hostname' });
    expect(['publisher-d.openx.net', 'a', 'x'.repeat(63)].map((value) => hostname(value))).to.deep.equal([true, true, true]);
    expect(['-bad.com', 'bad_host.com', 'a..b', `${'a'.repeat(63)}.`.repeat(4) + 'com'].map((value) => hostname(value))).to.deep.equal([false, false, false, false]);
    const uuid = ajv.compile({ type: 'string', format: 'uuid' });
    expect(uuid('0A1B2C3D-0000-4000-8000-00000000000F')).to.equal(true);
    expect(uuid('0A1B2C3D-0000-4000-8000-00000000000')).to.equal(false);
  });
});
