/**
 * Every integer of the document says its width (`format`, as code generators and linters ask),
 * derived from its own bounds so that no schema has to repeat it: int32 when both bounds fit in
 * 32 bits, int64 otherwise (account numbers, amounts of time in ms, counters without a bound).
 * A format a schema sets itself is kept.
 */

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isIntegerSchema(node: { [key: string]: Json }): boolean {
  const type = node.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

function widthOf(node: { [key: string]: Json }): 'int32' | 'int64' {
  const low = node.minimum ?? node.exclusiveMinimum;
  const high = node.maximum ?? node.exclusiveMaximum;
  const fits = typeof low === 'number' && typeof high === 'number' && low >= INT32.min && high <= INT32.max;
  return fits ? 'int32' : 'int64';
}

function visit(node: Json): Json {
  if (Array.isArray(node)) return node.map(visit);
  if (node === null || typeof node !== 'object') return node;
  const copy: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
  if (isIntegerSchema(copy) && copy.format === undefined) copy.format = widthOf(copy);
  return copy;
}

export function withIntegerFormats<D extends object>(document: D): D {
  return visit(document as unknown as Json) as unknown as D;
}
