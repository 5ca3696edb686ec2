/**
 * Why a value fails a bidder's params schema, in the words Prebid Server uses. Prebid Server validates params with
 * gojsonschema and joins the texts of its errors (`field: description`, no separator) under
 * `request.imp[i].ext.prebid.bidder.<name> failed validation.`. ajv decides whether params are valid; this walk runs
 * only for params ajv refused, and finds the errors gojsonschema would report, in the order it reports them: within
 * a value the composition keywords (anyOf, oneOf, allOf, not, dependencies), then the keywords of the value's kind,
 * then enum, then each property's value in the schema's order. For a failed anyOf or oneOf it reports the composition
 * error and then the errors of the branch that came closest (the highest score; the first on a tie), as gojsonschema
 * does.
 *
 * The draft-04 keywords the params schemas use are covered: type, properties, additionalProperties, required,
 * dependencies, anyOf, oneOf, allOf, not, enum, items, minItems, maxItems, uniqueItems, minLength, maxLength,
 * pattern, format, minimum, maximum (and their draft-04 exclusive flags), multipleOf, minProperties, maxProperties,
 * and local `$ref`s.
 */

type Schema = Record<string, unknown>;

/** gojsonschema's result for one (sub)validation: its errors, and how much of the value passed (to pick a branch). */
interface Result {
  errors: string[];
  score: number;
}

/** The formats gojsonschema checks that params schemas use, with its own rules. */
export const SCHEMA_FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  hostname: (value) => value.length < 256 && /^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$/.test(value),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
};

/** The texts gojsonschema gives a value that fails `schema`, joined as Prebid Server joins them; '' when it passes. */
export function schemaFailureText(schema: object, value: unknown): string {
  const result: Result = { errors: [], score: 0 };
  try {
    new SchemaWalk(schema as Schema).validate(schema as Schema, value, '(root)', result);
  } catch (err) {
    // A schema whose `$ref`s loop without descending into the value: no text of ours (the caller has ajv's).
    if (err instanceof SchemaTooDeep) return '';
    throw err;
  }
  return result.errors.join('');
}

class SchemaTooDeep extends Error {}

/** Nested (sub)schemas one walk may enter at once; params nest a few levels, a looping `$ref` forever. */
const MAX_WALK_DEPTH = 256;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** gojsonschema's name for a type list: the name alone, or `[a,b]`. */
function typeListText(types: string[]): string {
  return types.length === 1 ? types[0]! : `[${types.join(',')}]`;
}

/** The JSON type gojsonschema sees; a number with no fractional part is an integer. */
function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'boolean' : 'string';
}

/** A bound as gojsonschema prints it: the shortest decimal. */
function numberText(value: number): string {
  return String(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

class SchemaWalk {
  private depth = 0;

  constructor(private readonly root: Schema) {}

  private resolve(ref: string): Schema | undefined {
    if (ref === '#') return this.root;
    if (!ref.startsWith('#/')) return undefined;
    let target: unknown = this.root;
    for (const part of ref.slice(2).split('/')) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isSchema(target) ? target[key] : undefined;
    }
    return isSchema(target) ? target : undefined;
  }

  private error(result: Result, context: string, description: string): void {
    const field = context === '(root)' ? '(root)' : context.slice('(root).'.length);
    result.errors.push(`${field}: ${description}`);
  }

  private sub(schema: Schema, value: unknown, context: string): Result {
    const result: Result = { errors: [], score: 0 };
    this.validate(schema, value, context, result);
    return result;
  }

  private static merge(into: Result, other: Result): void {
    into.errors.push(...other.errors);
    into.score += other.score;
  }

  validate(schema: Schema, value: unknown, context: string, result: Result): void {
    if (++this.depth > MAX_WALK_DEPTH) throw new SchemaTooDeep();
    try {
      this.validateHere(schema, value, context, result);
    } finally {
      this.depth--;
    }
  }

  private validateHere(schema: Schema, value: unknown, context: string, result: Result): void {
    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref);
      if (target) this.validate(target, value, context, result);
      return;
    }
    const types = typesOf(schema);
    const given = jsonTypeOf(value);
    const typeFits = types.length === 0 || types.includes(given) || (given === 'integer' && types.includes('number'));
    if (!typeFits) {
      this.error(result, context, `Invalid type. Expected: ${typeListText(types)}, given: ${given}`);
      return;
    }
    this.compositions(schema, value, context, result);
    if (given === 'object') {
      const object = value as Record<string, unknown>;
      this.objectKeywords(schema, object, context, result);
      this.enumKeyword(schema, value, context, result);
      if (isSchema(schema.properties)) {
        for (const [property, propertySchema] of Object.entries(schema.properties)) {
          if (Object.hasOwn(object, property) && isSchema(propertySchema)) this.validate(propertySchema, object[property], `${context}.${property}`, result);
        }
      }
    } else if (given === 'array') {
      this.arrayKeywords(schema, value as unknown[], context, result);
      this.enumKeyword(schema, value, context, result);
    } else if (given === 'null') {
      this.enumKeyword(schema, value, context, result);
    } else {
      if (given === 'integer' || given === 'number') this.numberKeywords(schema, value as number, context, result);
      this.enumKeyword(schema, value, context, result);
      if (given === 'string') this.stringKeywords(schema, value as string, context, result);
    }
    result.score++;
  }

  private compositions(schema: Schema, value: unknown, context: string, result: Result): void {
    if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) {
      let best: Result | undefined;
      let passed = false;
      for (const branch of schema.anyOf) {
        if (passed || !isSchema(branch)) continue;
        const attempt = this.sub(branch, value, context);
        passed = attempt.errors.length === 0;
        if (!passed && (best === undefined || attempt.score > best.score)) best = attempt;
      }
      if (!passed) {
        this.error(result, context, 'Must validate at least one schema (anyOf)');
        if (best) SchemaWalk.merge(result, best);
      }
    }
    if (Array.isArray(schema.oneOf) && schema.oneOf.length > 0) {
      let best: Result | undefined;
      let passedCount = 0;
      for (const branch of schema.oneOf) {
        if (!isSchema(branch)) continue;
        const attempt = this.sub(branch, value, context);
        if (attempt.errors.length === 0) passedCount++;
        else if (passedCount === 0 && (best === undefined || attempt.score > best.score)) best = attempt;
      }
      if (passedCount !== 1) {
        this.error(result, context, 'Must validate one and only one schema (oneOf)');
        if (passedCount === 0 && best) SchemaWalk.merge(result, best);
      }
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      let passedCount = 0;
      for (const branch of schema.allOf) {
        if (!isSchema(branch)) continue;
        const attempt = this.sub(branch, value, context);
        if (attempt.errors.length === 0) passedCount++;
        SchemaWalk.merge(result, attempt);
      }
      if (passedCount !== schema.allOf.length) this.error(result, context, 'Must validate all the schemas (allOf)');
    }
    if (isSchema(schema.not) && this.sub(schema.not, value, context).errors.length === 0) {
      this.error(result, context, 'Must not validate the schema (not)');
    }
    if (isSchema(schema.dependencies) && isSchema(value)) {
      for (const key of Object.keys(value)) {
        const dependency = schema.dependencies[key];
        if (Array.isArray(dependency)) {
          for (const needed of dependency) {
            if (!Object.hasOwn(value, String(needed))) this.error(result, context, `Has a dependency on ${String(needed)}`);
          }
        } else if (isSchema(dependency)) {
          this.validate(dependency, value, context, result);
        }
      }
    }
    result.score++;
  }

  private objectKeywords(schema: Schema, value: Record<string, unknown>, context: string, result: Result): void {
    const count = Object.keys(value).length;
    if (typeof schema.minProperties === 'number' && count < schema.minProperties) this.error(result, context, `Must have at least ${schema.minProperties} properties`);
    if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) this.error(result, context, `Must have at most ${schema.maxProperties} properties`);
    if (Array.isArray(schema.required)) {
      for (const property of schema.required) {
        if (Object.hasOwn(value, String(property))) result.score++;
        else this.error(result, context, `${String(property)} is required`);
      }
    }
    const described = isSchema(schema.properties) ? schema.properties : {};
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(described, key)) continue;
      const additional = schema.additionalProperties;
      if (additional === false) this.error(result, context, `Additional property ${key} is not allowed`);
      else if (isSchema(additional)) SchemaWalk.merge(result, this.sub(additional, value[key], `${context}.${key}`));
    }
    result.score++;
  }

  private arrayKeywords(schema: Schema, value: unknown[], context: string, result: Result): void {
    if (isSchema(schema.items)) {
      const items = schema.items;
      value.forEach((item, index) => SchemaWalk.merge(result, this.sub(items, item, `${context}.${index}`)));
    }
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) this.error(result, context, `Array must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) this.error(result, context, `Array must have at most ${schema.maxItems} items`);
    if (schema.uniqueItems === true) {
      // Each repeat is reported against the last earlier place of the same value, as gojsonschema reports it.
      const lastSeen = new Map<string, number>();
      value.forEach((item, index) => {
        const text = JSON.stringify(item);
        const earlier = lastSeen.get(text);
        if (earlier !== undefined) this.error(result, context, `array items[${earlier},${index}] must be unique`);
        lastSeen.set(text, index);
      });
    }
    result.score++;
  }

  private stringKeywords(schema: Schema, value: string, context: string, result: Result): void {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) this.error(result, context, `String length must be greater than or equal to ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) this.error(result, context, `String length must be less than or equal to ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) this.error(result, context, `Does not match pattern '${schema.pattern}'`);
    if (typeof schema.format === 'string') {
      const check = SCHEMA_FORMATS[schema.format];
      if (check && !check(value)) this.error(result, context, `Does not match format '${schema.format}'`);
    }
    result.score++;
  }

  private numberKeywords(schema: Schema, value: number, context: string, result: Result): void {
    if (typeof schema.multipleOf === 'number' && !Number.isInteger(value / schema.multipleOf)) this.error(result, context, `Must be a multiple of ${numberText(schema.multipleOf)}`);
    if (typeof schema.maximum === 'number') {
      if (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum) {
        this.error(result, context, schema.exclusiveMaximum === true ? `Must be less than ${numberText(schema.maximum)}` : `Must be less than or equal to ${numberText(schema.maximum)}`);
      }
    }
    if (typeof schema.minimum === 'number') {
      if (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum) {
        this.error(result, context, schema.exclusiveMinimum === true ? `Must be greater than ${numberText(schema.minimum)}` : `Must be greater than or equal to ${numberText(schema.minimum)}`);
      }
    }
    result.score++;
  }

  private enumKeyword(schema: Schema, value: unknown, context: string, result: Result): void {
    if (Array.isArray(schema.enum) && schema.enum.length > 0 && !schema.enum.some((allowed) => sameJson(allowed, value))) {
      const field = context === '(root)' ? '(root)' : context.slice('(root).'.length);
      this.error(result, context, `${field} must be one of the following: ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}`);
    }
    result.score++;
  }
}
