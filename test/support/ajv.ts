/**
 * Ajv (draft 2020-12) for the suites that check values against the OpenAPI document. Ajv caches
 * what it compiled by the schema object, and the suites pass `{ $ref: 'doc#/…' }` literals: a new
 * object each call, so each call compiled its schema afresh (5 of the unit run's 25 s of CPU went
 * to it). This instance validates a bare `{ $ref }` against the schema the reference names (which
 * Ajv compiles once) and keeps what it compiled of any other schema by its JSON: one compile per
 * distinct schema, the same verdicts and errors. Options and use are Ajv2020's.
 */
import { Ajv2020, type AnySchema, type Options, type ValidateFunction } from 'ajv/dist/2020.js';

export function cachingAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  const compiled = new Map<string, ValidateFunction>();
  const validate = ajv.validate.bind(ajv) as (schema: AnySchema | string, data: unknown) => boolean;
  ajv.validate = ((schema: AnySchema | string, data: unknown): boolean => {
    if (typeof schema !== 'object') return validate(schema, data);
    // A bare `{ $ref }` is the schema it names: Ajv compiles that once for every literal naming it.
    const keys = Object.keys(schema);
    if (keys.length === 1 && keys[0] === '$ref' && typeof (schema as { $ref: unknown }).$ref === 'string') return validate((schema as { $ref: string }).$ref, data);
    const key = JSON.stringify(schema);
    let check = compiled.get(key);
    if (!check) {
      check = ajv.compile(schema);
      compiled.set(key, check);
    }
    const valid = check(data);
    ajv.errors = check.errors;
    return valid;
  }) as Ajv2020['validate'];
  return ajv;
}
